@testable import ClearanceServer
import Testing

@Suite("ConnectionTimers")
struct ConnectionTimersTests {
    private typealias Action = ConnectionTimers.Action

    private enum Step {
        case tick(Double)
        case frame(Double)
        case authorized
        case closeStarted(Double)
    }

    /// Runs `steps` (times in seconds from the start) and returns the actions of the ticks.
    private func run(_ steps: [Step], authorizationTimeout: Duration? = nil, _ adjust: (inout HubLimits) -> Void = { _ in }) -> [Action] {
        var limits = HubLimits {
            $0.connections.activityTimeout = 10
            $0.connections.pongTimeout = 3
            $0.connections.closeTimeout = 2
        }
        adjust(&limits)
        let start = ContinuousClock.now
        var timers = ConnectionTimers(settings: ConnectionTimers.Settings(limits: limits, authorizationTimeout: authorizationTimeout), now: start)
        var actions: [Action] = []
        for step in steps {
            switch step {
            case let .tick(seconds): actions.append(timers.tick(at: start + .seconds(seconds)))
            case let .frame(seconds): timers.receivedFrame(at: start + .seconds(seconds))
            case .authorized: timers.authorized()
            case let .closeStarted(seconds): timers.closeStarted(at: start + .seconds(seconds))
            }
        }
        return actions
    }

    @Test func pingsAfterSilenceThenClosesWith4201WithoutAnswer() {
        #expect(run([.tick(9), .tick(10), .tick(11), .tick(13)]) == [.none, .sendPing, .none, .close(.pongNotReceived)])
    }

    @Test func anyFrameAnswersThePing() {
        #expect(run([.tick(10), .frame(11), .tick(14), .tick(21)]) == [.sendPing, .none, .sendPing])
    }

    @Test func withoutServerPingsSilenceClosesWith4202() {
        let actions = run([.tick(29), .tick(30)]) { $0.connections.serverPings = false; $0.connections.inactivityTimeout = 30 }
        #expect(actions == [.none, .close(.closedAfterInactivity)])
    }

    @Test func authorizationDeadlineClosesWith4009UnlessAuthorized() {
        #expect(run([.tick(4.9), .tick(5)], authorizationTimeout: .seconds(5)) == [.none, .close(.unauthorized)])
        #expect(run([.authorized, .tick(6)], authorizationTimeout: .seconds(5)) == [.none])
        #expect(run([.tick(6)]) == [.none])
    }

    @Test func closeHandshakeAbortsOnceAfterTheCloseTimeout() {
        #expect(run([.closeStarted(0), .tick(1), .tick(30), .tick(31)]) == [.none, .abort, .none])
    }

    @Test func tickIntervalIsAQuarterOfTheShortestTimerWithinBounds() {
        func interval(authorizationTimeout: Duration? = nil, _ adjust: (inout HubLimits) -> Void) -> Duration {
            var limits = HubLimits {
            $0.connections.activityTimeout = 10
            $0.connections.pongTimeout = 3
            $0.connections.closeTimeout = 2
        }
            adjust(&limits)
            return ConnectionTimers.Settings(limits: limits, authorizationTimeout: authorizationTimeout).tickInterval
        }
        #expect(interval { _ in } == .milliseconds(750))
        #expect(interval { $0 = HubLimits() } == .seconds(5))
        #expect(interval { $0.connections.pongTimeout = 0.01 } == .milliseconds(50))
        #expect(interval { $0.connections.serverPings = false; $0.connections.inactivityTimeout = 2 } == .milliseconds(500))
        #expect(interval(authorizationTimeout: .seconds(1)) { _ in } == .milliseconds(250))
    }
}
