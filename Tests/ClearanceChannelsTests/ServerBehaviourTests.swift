import Clearance
import ClearanceChannels
import ClearanceTestSupport
import Foundation
import Testing

struct ServerBehaviourTests {
    static let signature = "test-key:" + String(repeating: "0a", count: 32)
    static let authorizer = CustomChannelAuthorizer { _, _ in ChannelAuthorization(auth: signature) }

    func client(_ fake: FakePusherServerBox, configure: (inout ChannelClientOptions) -> Void = { _ in }) -> ChannelClient {
        var options = TestHub.options(fake.port, authorizer: Self.authorizer)
        configure(&options)
        return ChannelClient(key: "test-key", options: options)
    }

    @Test func hostedPusherInvalidSignatureErrorReachesTheChannelItNames() async throws {
        let fake = try await FakePusherServer.start { _, event, data in
            guard event == "pusher:subscribe", let channel = data["channel"] as? String else { return [] }
            if channel == "news" { return [.send(#"{"event":"pusher_internal:subscription_succeeded","channel":"news","data":"{}"}"#)] }
            return [.send(#"{"event":"pusher:error","data":{"code":null,"message":"Invalid signature: Expected HMAC SHA256 hex digest of 1.1:\#(channel), but got \#(Self.signature)"}}"#)]
        }
        let client = client(fake)
        await client.connect()
        let news = await client.subscribe("news")
        let a = await client.subscribe("private-a")
        try await news.subscribed()
        do {
            try await a.subscribed()
            Issue.record("must fail")
        } catch {
            #expect(error.qualifiedCode == "channels.server.pusherError")
            #expect(error.message.contains("Invalid signature"))
            #expect(!error.message.contains(String(repeating: "0a", count: 20)))
        }
        #expect(news.state.isSubscribed)
        await client.disconnect()
        await fake.stop()
    }

    @Test func reverbCode4009ErrorFailsTheWaitingChannel() async throws {
        let fake = try await FakePusherServer.start { _, event, _ in
            event == "pusher:subscribe" ? [.send(#"{"event":"pusher:error","data":{"code":4009,"message":"Connection is unauthorized"}}"#)] : []
        }
        let client = client(fake)
        await client.connect()
        let channel = await client.subscribe("private-b")
        do {
            try await channel.subscribed()
            Issue.record("must fail")
        } catch {
            #expect(error.qualifiedCode == "channels.server.pusherError")
            #expect(error.status == 4009)
        }
        await client.disconnect()
        await fake.stop()
    }

    @Test func close4009FailsTheConnectionAndTheWaitingChannels() async throws {
        let fake = try await FakePusherServer.start { _, event, _ in
            event == "pusher:subscribe" ? [.close(code: 4009, reason: "unauthorized")] : []
        }
        let client = client(fake)
        await client.connect()
        let channel = await client.subscribe("private-c")
        do {
            try await channel.subscribed()
            Issue.record("must fail")
        } catch {
            #expect(error.qualifiedCode == "channels.server.connectionClosed")
            #expect(error.status == 4009)
        }
        #expect(await client.state == .failed(.closedByServer(code: 4009, reason: "unauthorized")))
        #expect(fake.connections.withLock { $0 } == 1)
        await fake.stop()
    }

    /// What the "does not reconnect" checks read: ``ChannelClient/reconnectScheduled`` is true
    /// while the client waits out a back-off (an hour here, which the test never waits on), false
    /// once `disconnect()` stopped that wait or the next socket opened, and false after a 4009,
    /// which ends the connection for good.
    @Test func aReconnectIsScheduledWhileBackingOffAndNeverAfterA4009() async throws {
        /// A server that closes its first connection with `code` when the client subscribes, and
        /// subscribes the later ones.
        func closingFirst(with code: Int) async throws -> FakePusherServerBox {
            try await FakePusherServer.start { connection, event, _ in
                guard event == "pusher:subscribe" else { return [] }
                return connection == 1
                    ? [.close(code: code, reason: "closed by the test")]
                    : [.send(#"{"event":"pusher_internal:subscription_succeeded","channel":"news","data":"{}"}"#)]
            }
        }

        // 4100: a back-off of at least `minimumServerBackoff`, an hour here.
        let backingOff = try await closingFirst(with: 4100)
        let waiting = client(backingOff) { $0.reconnectPolicy.minimumServerBackoff = .seconds(3_600) }
        #expect(await waiting.reconnectScheduled == false)
        _ = await waiting.subscribe("news")
        await waiting.connect()
        _ = try await first(waiting.states) { $0 == .unavailable }
        #expect(await waiting.reconnectScheduled)
        #expect(await waiting.state == .unavailable)
        await waiting.disconnect()
        #expect(await waiting.reconnectScheduled == false)
        #expect(backingOff.connections.withLock { $0 } == 1)
        await backingOff.stop()

        // 4100 with no floor: the back-off (20 ms or so) passes and the next socket opens.
        let returning = try await closingFirst(with: 4100)
        let back = client(returning) { $0.reconnectPolicy.minimumServerBackoff = .zero }
        let news = await back.subscribe("news")
        await back.connect()
        try await news.subscribed()
        #expect(await back.socketID == "2.2")
        #expect(await back.reconnectScheduled == false)
        await back.disconnect()
        await returning.stop()

        // 4009: failed for good, nothing scheduled.
        let refusing = try await closingFirst(with: 4009)
        let refused = client(refusing)
        _ = await refused.subscribe("news")
        await refused.connect()
        let failed = try await first(refused.states) { $0.isTerminal }
        #expect(failed == .failed(.closedByServer(code: 4009, reason: "closed by the test")))
        #expect(await refused.reconnectScheduled == false)
        #expect(refusing.connections.withLock { $0 } == 1)
        await refusing.stop()
    }

    @Test func closeCodesDecideHowSoonToReconnect() async throws {
        let opened = Locked<[ContinuousClock.Instant]>([])
        let fake = try await FakePusherServer.start { connection, event, _ in
            guard event == "pusher:subscribe" else { return [] }
            opened.withLock { $0.append(.now) }
            switch connection {
            case 1: return [.close(code: 4100, reason: "over capacity")]
            case 2: return [.close(code: 4200, reason: "restarting")]
            default: return [.send(#"{"event":"pusher_internal:subscription_succeeded","channel":"news","data":"{}"}"#)]
            }
        }
        let client = client(fake)
        let news = await client.subscribe("news")
        await client.connect()
        try await news.subscribed()
        let times = opened.withLock { $0 }
        #expect(times.count == 3)
        // 4100 (over capacity): back off at least a second; 4200 (restarting): come back at once.
        // The delays the policy chose are read, not the wall time between the sockets.
        let delays = await client.recentReconnectDelays
        #expect(delays.count == 2)
        #expect(delays.first.map { $0 >= .seconds(1) } == true, "after 4100: \(delays)")
        #expect(delays.last.map { $0 < .milliseconds(900) } == true, "after 4200: \(delays)")
        #expect(times[1] - times[0] >= .seconds(1))
        #expect(await client.socketID == "3.3")
        await client.disconnect()
        await fake.stop()
    }

    @Test func unansweredPingsEndTheSocketAndServerPingsAreAnswered() async throws {
        let fake = try await FakePusherServer.start(activityTimeout: 1) { _, event, _ in
            event == "pusher:subscribe" ? [.send(#"{"event":"pusher:ping","data":{}}"#)] : []
        }
        let client = client(fake) { $0.pongTimeout = .milliseconds(300) }
        _ = await client.subscribe("news")
        await client.connect()
        try await eventually("a second connection after an unanswered ping", timeout: .seconds(5)) {
            fake.connections.withLock { $0 } >= 2
        }
        #expect(fake.frames(event: "pusher:ping").count >= 1)
        #expect(fake.frames(event: "pusher:pong").count >= 1)
        await client.disconnect()
        await fake.stop()
    }
}
