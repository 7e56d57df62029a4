@testable import ClearanceServer
import Testing

@Suite("ConnectionTimers")
struct ConnectionTimersTests {
    private func settings(_ adjust: (inout HubLimits) -> Void = { _ in }) -> ConnectionTimers.Settings {
        var limits = HubLimits(activityTimeout: 10, pongTimeout: 3, closeTimeout: 2)
        adjust(&limits)
        return ConnectionTimers.Settings(limits: limits)
    }

    @Test func pingsAfterSilenceThenClosesWith4201WithoutAnswer() {
        let start = ContinuousClock.now
        var timers = ConnectionTimers(settings: settings(), now: start)
        #expect(timers.tick(at: start + .seconds(9)) == .none)
        #expect(timers.tick(at: start + .seconds(10)) == .sendPing)
        #expect(timers.tick(at: start + .seconds(11)) == .none)
        #expect(timers.tick(at: start + .seconds(13)) == .close(.pongNotReceived))
    }

    @Test func anyFrameAnswersThePing() {
        let start = ContinuousClock.now
        var timers = ConnectionTimers(settings: settings(), now: start)
        #expect(timers.tick(at: start + .seconds(10)) == .sendPing)
        timers.receivedFrame(at: start + .seconds(11))
        #expect(timers.tick(at: start + .seconds(14)) == .none)
        #expect(timers.tick(at: start + .seconds(21)) == .sendPing)
    }

    @Test func withoutServerPingsSilenceClosesWith4202() {
        let start = ContinuousClock.now
        var timers = ConnectionTimers(settings: settings { $0.serverPings = false; $0.inactivityTimeout = 30 }, now: start)
        #expect(timers.tick(at: start + .seconds(29)) == .none)
        #expect(timers.tick(at: start + .seconds(30)) == .close(.closedAfterInactivity))
    }

    @Test func signInDeadlineClosesWith4009UnlessSignedIn() {
        let start = ContinuousClock.now
        var timers = ConnectionTimers(settings: settings { $0.userAuthenticationTimeout = 5 }, now: start)
        #expect(timers.tick(at: start + .seconds(5)) == .close(.unauthorized))
        var signedIn = ConnectionTimers(settings: settings { $0.userAuthenticationTimeout = 5 }, now: start)
        signedIn.signedIn()
        #expect(signedIn.tick(at: start + .seconds(6)) == .none)
    }

    @Test func closeHandshakeAbortsOnceAfterTheCloseTimeout() {
        let start = ContinuousClock.now
        var timers = ConnectionTimers(settings: settings(), now: start)
        timers.closeStarted(at: start)
        #expect(timers.isClosing)
        #expect(timers.tick(at: start + .seconds(30)) == .abort)
        #expect(timers.tick(at: start + .seconds(31)) == .none)
    }

    @Test func tickIntervalIsAQuarterOfTheShortestTimerWithinBounds() {
        #expect(settings().tickInterval == .milliseconds(500))
        #expect(ConnectionTimers.Settings(limits: HubLimits()).tickInterval == .seconds(5))
        #expect(settings { $0.pongTimeout = 0.01 }.tickInterval == .milliseconds(50))
    }
}
