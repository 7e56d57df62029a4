import Testing
@testable import ClearanceChannels

/// A deterministic generator for jitter (SplitMix64).
struct FixedGenerator: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 {
        value &+= 0x9E37_79B9_7F4A_7C15
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct ReconnectPolicyTests {
    let policy = ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(30), multiplier: 2, jitter: 0.25)

    @Test func codes4000to4099StopAndReport() {
        var generator = FixedGenerator(value: 0)
        for code in [UInt16(4000), 4001, 4004, 4009, 4099] {
            let decision = policy.decision(after: .closed(code: code, reason: "no"), attempt: 1, using: &generator)
            #expect(decision == .stop(.closedByServer(code: code, reason: "no")))
        }
    }

    @Test func codes4100to4199BackOffAtLeastOneSecondExponentially() {
        var generator = FixedGenerator(value: 0)
        let fast = ReconnectPolicy(initialDelay: .milliseconds(10), jitter: 0)
        for code in [UInt16(4100), 4150, 4199] {
            #expect(fast.decision(after: .closed(code: code, reason: ""), attempt: 1, using: &generator) == .retry(after: .seconds(1)))
        }
        let noJitter = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0)
        #expect(noJitter.decision(after: .closed(code: 4100, reason: ""), attempt: 3, using: &generator) == .retry(after: .seconds(4)))
        #expect(noJitter.decision(after: .closed(code: 4100, reason: ""), attempt: 40, using: &generator) == .retry(after: .seconds(30)))
    }

    @Test func codes4200to4299RetryAboutEverySecondThenBackOff() throws {
        var generator = FixedGenerator(value: 0)
        for code in [UInt16(4200), 4201, 4202, 4299] {
            guard case .retry(let first) = policy.decision(after: .closed(code: code, reason: ""), attempt: 0, restartAttempt: 1, using: &generator) else {
                Issue.record("\(code) must retry")
                continue
            }
            #expect(first >= .zero && first <= .seconds(1))
        }
        // The first retries of clients closed together spread over the whole first second.
        var firsts: [Duration] = []
        for _ in 0..<200 {
            if case .retry(let delay) = policy.decision(after: .closed(code: 4200, reason: ""), attempt: 0, restartAttempt: 1, using: &generator) {
                firsts.append(delay)
            }
        }
        #expect(firsts.count == 200)
        let earliest = try #require(firsts.min()), latest = try #require(firsts.max())
        #expect(earliest < .milliseconds(100) && latest > .milliseconds(900))
        // Later retries, whatever they end with (a restarting server refuses connections): about a second.
        for restartAttempt in 2...30 {
            guard case .retry(let delay) = policy.decision(
                after: .transport(ChannelClientError.notConnected), attempt: 0, restartAttempt: restartAttempt, using: &generator)
            else {
                Issue.record("a restart must retry")
                continue
            }
            #expect(delay >= .milliseconds(750) && delay <= .milliseconds(1250))
        }
        // Beyond the restart retries: the exponential back-off.
        let exact = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0)
        #expect(exact.decision(after: .closed(code: 4200, reason: ""), attempt: 3, restartAttempt: 31, using: &generator) == .retry(after: .seconds(4)))
        #expect(exact.decision(after: .closed(code: 4200, reason: ""), attempt: 3, using: &generator) == .retry(after: .seconds(4)))
        // 4000–4099 stop even during a restart.
        #expect(policy.decision(after: .closed(code: 4001, reason: "no"), attempt: 0, restartAttempt: 2, using: &generator)
            == .stop(.closedByServer(code: 4001, reason: "no")))
    }

    @Test func jitterStaysWithinItsFraction() {
        var generator = FixedGenerator(value: 1)
        let cause = DisconnectCause.closed(code: 4301, reason: "")
        var delays: Set<Duration> = []
        for _ in 0..<200 {
            guard case .retry(let delay) = policy.decision(after: cause, attempt: 2, using: &generator) else {
                Issue.record("4301 must retry")
                return
            }
            #expect(delay >= .seconds(2) && delay <= .milliseconds(2500))
            delays.insert(delay)
        }
        #expect(delays.count > 100)
        let exact = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0)
        #expect(exact.decision(after: cause, attempt: 2, using: &generator) == .retry(after: .seconds(2)))
    }

    @Test func transportFailuresBackOff() {
        var generator = FixedGenerator(value: 0)
        let noJitter = ReconnectPolicy(initialDelay: .milliseconds(100), jitter: 0)
        let cause = DisconnectCause.transport(ChannelClientError.notConnected)
        #expect(noJitter.decision(after: cause, attempt: 1, using: &generator) == .retry(after: .milliseconds(100)))
        #expect(noJitter.decision(after: cause, attempt: 2, using: &generator) == .retry(after: .milliseconds(200)))
    }
}

@Suite struct ConnectionMachineTests {
    @Test func walksThroughTheStates() {
        var machine = ConnectionMachine(policy: ReconnectPolicy(initialDelay: .milliseconds(50), jitter: 0, restartRetryInterval: .zero))
        var generator = FixedGenerator(value: 0)
        let start = ContinuousClock.now
        #expect(machine.state == .initialized)
        do { let result = machine.connectRequested(); #expect(result) }
        #expect(machine.state == .connecting)
        do { let result = machine.connectRequested(); #expect(!result) }
        #expect(machine.established(socketID: "1.1", at: start) == 1)
        #expect(machine.state == .connected(socketID: "1.1"))
        #expect(machine.lost(.closed(code: 4200, reason: ""), at: start + .seconds(10), using: &generator) == .reconnect(after: .zero))
        #expect(machine.state == .unavailable)
        machine.reconnecting()
        #expect(machine.state == .connecting)
        #expect(machine.lost(.transport(ChannelClientError.notConnected), at: start + .seconds(11), using: &generator) == .reconnect(after: .zero))
        #expect(machine.restartAttempt == 2)
        machine.reconnecting()
        #expect(machine.established(socketID: "2.2", at: start + .seconds(12)) == 2)
        #expect(machine.lost(.closed(code: 4001, reason: "no app"), at: start + .seconds(20), using: &generator) == .stop)
        #expect(machine.state == .failed(.closedByServer(code: 4001, reason: "no app")))
        do { let result = machine.connectRequested(); #expect(result) }
        #expect(machine.attempt == 0 && machine.restartAttempt == nil)
    }

    /// A planned restart: about a second between retries while the server is away (connection
    /// refused), for the policy's number of retries, then the exponential back-off.
    @Test func aPlannedRestartRetriesAtAShortPaceThenBacksOff() {
        let policy = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0, restartRetryInterval: .seconds(1), restartRetryAttempts: 5)
        var machine = ConnectionMachine(policy: policy)
        var generator = FixedGenerator(value: 3)
        let start = ContinuousClock.now
        _ = machine.connectRequested()
        _ = machine.established(socketID: "1.1", at: start)
        guard case .reconnect(let first) = machine.lost(.closed(code: 4200, reason: "restarting"), at: start + .seconds(60), using: &generator) else {
            Issue.record("4200 must reconnect")
            return
        }
        #expect(first <= .seconds(1))
        for _ in 2...5 {
            machine.reconnecting()
            #expect(machine.lost(.transport(ChannelClientError.notConnected), at: start + .seconds(61), using: &generator) == .reconnect(after: .seconds(1)))
        }
        machine.reconnecting()
        #expect(machine.lost(.transport(ChannelClientError.notConnected), at: start + .seconds(62), using: &generator) == .reconnect(after: .seconds(1)))
        machine.reconnecting()
        #expect(machine.lost(.transport(ChannelClientError.notConnected), at: start + .seconds(63), using: &generator) == .reconnect(after: .seconds(2)))
        #expect(machine.attempt == 2)
    }

    /// The counts start again only once a connection lived a few seconds: a server that accepts
    /// and closes with 4200 at once does not get a fresh set of quick retries every time.
    @Test func countsStartAgainOnlyAfterAStableConnection() {
        let policy = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0, restartRetryInterval: .seconds(1), restartRetryAttempts: 2,
                                     stableConnectionDuration: .seconds(3))
        var machine = ConnectionMachine(policy: policy)
        var generator = FixedGenerator(value: 5)
        let start = ContinuousClock.now
        _ = machine.connectRequested()
        _ = machine.established(socketID: "1.1", at: start)
        _ = machine.lost(.closed(code: 4200, reason: ""), at: start + .seconds(30), using: &generator)
        #expect(machine.restartAttempt == 1)
        machine.reconnecting()
        // Established, then closed again with 4200 after half a second: still the same restart.
        _ = machine.established(socketID: "2.2", at: start + .seconds(31))
        #expect(machine.lost(.closed(code: 4200, reason: ""), at: start + .milliseconds(31_500), using: &generator) == .reconnect(after: .seconds(1)))
        #expect(machine.restartAttempt == 2)
        machine.reconnecting()
        _ = machine.established(socketID: "3.3", at: start + .seconds(33))
        #expect(machine.lost(.closed(code: 4200, reason: ""), at: start + .milliseconds(33_500), using: &generator) == .reconnect(after: .seconds(1)))
        #expect(machine.attempt == 1)
        machine.reconnecting()
        // A connection that lived 3 s: everything starts again.
        _ = machine.established(socketID: "4.4", at: start + .seconds(40))
        _ = machine.lost(.transport(ChannelClientError.notConnected), at: start + .seconds(43), using: &generator)
        #expect(machine.attempt == 1 && machine.restartAttempt == nil)
    }

    @Test func disconnectIsTerminal() {
        var machine = ConnectionMachine(policy: .standard)
        var generator = FixedGenerator(value: 0)
        _ = machine.connectRequested()
        machine.disconnectRequested()
        #expect(machine.lost(.closed(code: 4200, reason: ""), at: .now, using: &generator) == .stop)
        #expect(machine.state == .disconnected)
    }
}

@Suite struct ActivityMonitorTests {
    @Test func pingsAfterSilenceAndTimesOutWithoutPong() {
        let start = ContinuousClock.now
        var monitor = ActivityMonitor(timeout: .seconds(120), pongTimeout: .seconds(30), now: start)
        monitor.adopt(serverSeconds: 20)
        #expect(monitor.timeout == .seconds(20))
        #expect(monitor.next(at: start + .seconds(5)) == .wait(until: start + .seconds(20)))
        #expect(monitor.next(at: start + .seconds(20)) == .sendPing)
        #expect(monitor.next(at: start + .seconds(21)) == .wait(until: start + .seconds(50)))
        #expect(monitor.next(at: start + .seconds(50)) == .timedOut)
    }

    @Test func anyFrameCountsAsActivity() {
        let start = ContinuousClock.now
        var monitor = ActivityMonitor(timeout: .seconds(10), pongTimeout: .seconds(5), now: start)
        #expect(monitor.next(at: start + .seconds(10)) == .sendPing)
        monitor.received(at: start + .seconds(11))
        #expect(monitor.next(at: start + .seconds(12)) == .wait(until: start + .seconds(21)))
    }

    @Test func usesTheShorterTimeout() {
        #expect(ActivityMonitor.effectiveTimeout(own: .seconds(120), serverSeconds: 30) == .seconds(30))
        #expect(ActivityMonitor.effectiveTimeout(own: .seconds(10), serverSeconds: 120) == .seconds(10))
        #expect(ActivityMonitor.effectiveTimeout(own: .seconds(10), serverSeconds: nil) == .seconds(10))
    }
}

@Suite struct StaleAuthorizationFilterTests {
    @Test func onlyTheCurrentSocketsAuthorizationsPass() {
        var filter = StaleAuthorizationFilter()
        #expect(filter.ticket == nil)
        filter.connected(socketID: "1.1", generation: 1)
        let old = filter.ticket!
        do { let result = filter.admit(old); #expect(result) }
        filter.disconnected()
        do { let result = filter.admit(old); #expect(!result) }
        filter.connected(socketID: "2.2", generation: 2)
        do { let result = filter.admit(old); #expect(!result) }
        do { let result = filter.admit(filter.ticket!); #expect(result) }
        #expect(filter.discarded == 2)
    }

    @Test func aReusedSocketIDFromAnEarlierConnectionIsStillStale() {
        var filter = StaleAuthorizationFilter()
        filter.connected(socketID: "1.1", generation: 1)
        let first = filter.ticket!
        filter.connected(socketID: "1.1", generation: 2)
        do { let result = filter.admit(first); #expect(!result) }
    }
}

@Suite struct AuthorizationRetryPolicyTests {
    @Test func backsOffExponentially() {
        let policy = AuthorizationRetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(100))
        #expect(policy.delay(after: 1) == .milliseconds(100))
        #expect(policy.delay(after: 2) == .milliseconds(200))
        #expect(policy.delay(after: 3) == .milliseconds(400))
    }
}

@Suite struct OptionsTests {
    @Test func urlFollowsTheProtocol() throws {
        let cluster = ChannelClientOptions(endpoint: .cluster("eu"))
        #expect(try cluster.webSocketURL(key: "k") == "wss://ws-eu.pusher.com:443/app/k?protocol=7&client=clearance-swift&version=1.0.0")
        let loopback = ChannelClientOptions(endpoint: .host("127.0.0.1", port: 6001))
        #expect(try loopback.webSocketURL(key: "k").hasPrefix("ws://127.0.0.1:6001/app/k?protocol=7"))
        let forced = ChannelClientOptions(endpoint: .host("localhost", port: 6001), useTLS: true)
        #expect(try forced.webSocketURL(key: "k").hasPrefix("wss://"))
        #expect(throws: ChannelClientError.self) { try cluster.webSocketURL(key: "") }
    }
}
