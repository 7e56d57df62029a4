/// The timers of one connection, as a value: pings after silence, the pong deadline, the
/// inactivity limit, the authorization deadline, and the close handshake deadline.
///
/// The connection calls ``tick(at:)`` periodically and does what it returns; tests drive it
/// with made-up instants.
struct ConnectionTimers: Sendable {
    struct Settings: Sendable, Equatable {
        /// Silence before the hub pings.
        var activityTimeout: Duration
        /// Time allowed for any frame after the hub's ping.
        var pongTimeout: Duration
        /// Whether the hub pings; when not, silence for `inactivityTimeout` closes with 4202.
        var serverPings: Bool
        var inactivityTimeout: Duration
        /// Time allowed to authorize (sign in, or subscribe to a private or presence channel), when
        /// the app requires it (``HubAppConfiguration/authorizedConnections``).
        var authorizationTimeout: Duration?
        /// Time allowed for the client to answer the hub's close frame.
        var closeTimeout: Duration

        init(limits: HubLimits, authorizationTimeout: Duration? = nil) {
            activityTimeout = .seconds(limits.connections.activityTimeout)
            pongTimeout = .seconds(limits.connections.pongTimeout)
            serverPings = limits.connections.serverPings
            inactivityTimeout = .seconds(limits.connections.inactivityTimeout)
            self.authorizationTimeout = authorizationTimeout
            closeTimeout = .seconds(limits.connections.closeTimeout)
        }

        /// How often to tick: a quarter of the shortest liveness timer, between 50 ms and 5 s.
        /// (The close handshake deadline is not counted: dropping an unresponsive client a few
        /// seconds late costs nothing, while ticking fast costs every connection CPU.)
        var tickInterval: Duration {
            var shortest = serverPings ? min(activityTimeout, pongTimeout) : inactivityTimeout
            if let authorizationTimeout { shortest = min(shortest, authorizationTimeout) }
            return min(max(shortest / 4, .milliseconds(50)), .seconds(5))
        }
    }

    enum Action: Equatable {
        case none
        case sendPing
        case close(HubCloseCode)
        /// The client did not answer the close frame: drop the TCP connection.
        case abort
    }

    typealias Instant = ContinuousClock.Instant

    let settings: Settings
    private var lastActivity: Instant
    private var pingSentAt: Instant?
    private var authorizationDeadline: Instant?
    private var closeStartedAt: Instant?
    private var aborted = false

    init(settings: Settings, now: Instant) {
        self.settings = settings
        lastActivity = now
        authorizationDeadline = settings.authorizationTimeout.map { now + $0 }
    }

    /// Any frame from the client counts as activity and answers an outstanding ping.
    mutating func receivedFrame(at now: Instant) {
        lastActivity = now
        pingSentAt = nil
    }

    /// The connection signed in or subscribed to a private or presence channel: the
    /// authorization deadline no longer applies.
    mutating func authorized() {
        authorizationDeadline = nil
    }

    /// The hub sent its close frame: only the close handshake deadline applies from now on.
    mutating func closeStarted(at now: Instant) {
        if closeStartedAt == nil { closeStartedAt = now }
    }

    var isClosing: Bool { closeStartedAt != nil }

    mutating func tick(at now: Instant) -> Action {
        if let closeStartedAt {
            guard !aborted, now - closeStartedAt >= settings.closeTimeout else { return .none }
            aborted = true
            return .abort
        }
        if let authorizationDeadline, now >= authorizationDeadline {
            return .close(.unauthorized)
        }
        guard settings.serverPings else {
            return now - lastActivity >= settings.inactivityTimeout ? .close(.closedAfterInactivity) : .none
        }
        if let pingSentAt {
            return now - pingSentAt >= settings.pongTimeout ? .close(.pongNotReceived) : .none
        }
        if now - lastActivity >= settings.activityTimeout {
            pingSentAt = now
            return .sendPing
        }
        return .none
    }
}
