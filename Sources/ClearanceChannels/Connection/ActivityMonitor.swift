/// The activity timeout as a value: after `timeout` without any frame from the server, send
/// `pusher:ping`; with no frame within `pongTimeout` after that, give up on the socket.
struct ActivityMonitor: Sendable {
    /// What the watchdog does next.
    enum Step: Sendable, Equatable {
        /// Sleep until this instant, then ask again.
        case wait(until: ContinuousClock.Instant)
        /// Send `pusher:ping` now (the monitor now waits for a pong).
        case sendPing
        /// Nothing came back in time: close the socket.
        case timedOut
    }

    private(set) var timeout: Duration
    let pongTimeout: Duration
    private(set) var lastActivity: ContinuousClock.Instant
    private(set) var pingSentAt: ContinuousClock.Instant?

    init(timeout: Duration, pongTimeout: Duration, now: ContinuousClock.Instant) {
        self.timeout = timeout
        self.pongTimeout = pongTimeout
        self.lastActivity = now
    }

    /// min(own timeout, the server's `activity_timeout`), never below one second.
    static func effectiveTimeout(own: Duration, serverSeconds: Int?) -> Duration {
        guard let serverSeconds, serverSeconds > 0 else { return max(own, .seconds(1)) }
        return max(min(own, .seconds(serverSeconds)), .seconds(1))
    }

    /// Applies the server's `activity_timeout`.
    mutating func adopt(serverSeconds: Int?) {
        timeout = Self.effectiveTimeout(own: timeout, serverSeconds: serverSeconds)
    }

    /// Any frame arrived.
    mutating func received(at now: ContinuousClock.Instant) {
        lastActivity = now
        pingSentAt = nil
    }

    /// What to do at `now`.
    mutating func next(at now: ContinuousClock.Instant) -> Step {
        if let sent = pingSentAt {
            return now >= sent + pongTimeout ? .timedOut : .wait(until: sent + pongTimeout)
        }
        if now >= lastActivity + timeout {
            pingSentAt = now
            return .sendPing
        }
        return .wait(until: lastActivity + timeout)
    }
}
