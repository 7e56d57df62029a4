/// The connection's state and reconnect bookkeeping as a plain value: ``ChannelClient`` holds one
/// and asks it what to do; every transition is tested on its own.
struct ConnectionMachine: Sendable {
    /// What the client must do after a lost connection.
    enum AfterLoss: Sendable, Equatable {
        /// Reconnect after the delay (the state is now `unavailable`).
        case reconnect(after: Duration)
        /// Stop: the state is now `failed` or `disconnected`.
        case stop
    }

    typealias Instant = ContinuousClock.Instant

    private(set) var state: ConnectionState = .initialized
    /// Back-off attempts since the last stable connection.
    private(set) var attempt = 0
    /// Retries since a planned restart (close codes 4200–4299) began; `nil` when none is under way.
    private(set) var restartAttempt: Int?
    /// When the current connection was established.
    private var establishedAt: Instant?
    /// Increases with every established connection; ties authorizations to one socket.
    private(set) var generation: UInt64 = 0
    let policy: ReconnectPolicy

    init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// `connect()` was called. Returns true when a connection loop must start.
    mutating func connectRequested() -> Bool {
        switch state {
        case .initialized, .disconnected, .failed:
            state = .connecting
            attempt = 0
            restartAttempt = nil
            establishedAt = nil
            return true
        case .connecting, .connected, .unavailable:
            return false
        }
    }

    /// A new socket is being opened after a back-off.
    mutating func reconnecting() {
        if case .unavailable = state { state = .connecting }
    }

    /// `pusher:connection_established` arrived at `now`. Returns the new generation.
    mutating func established(socketID: String, at now: Instant) -> UInt64 {
        generation &+= 1
        establishedAt = now
        state = .connected(socketID: socketID)
        return generation
    }

    /// The socket ended with `cause` at `now`.
    ///
    /// A connection that lived ``ReconnectPolicy/stableConnectionDuration`` starts the counts
    /// again; a close with 4200–4299 starts a planned restart unless one is under way (so a
    /// server that keeps closing with 4200 at once gets its retries only once).
    mutating func lost(_ cause: DisconnectCause, at now: Instant, using generator: inout some RandomNumberGenerator) -> AfterLoss {
        if state.isTerminal { return .stop }
        if let establishedAt, now - establishedAt >= policy.stableConnectionDuration {
            attempt = 0
            restartAttempt = nil
        }
        establishedAt = nil
        if cause.isPlannedRestart, restartAttempt == nil { restartAttempt = 0 }

        let decision: ReconnectDecision
        if let made = restartAttempt, made < policy.restartRetryAttempts {
            restartAttempt = made + 1
            decision = policy.decision(after: cause, attempt: attempt, restartAttempt: made + 1, using: &generator)
        } else {
            attempt += 1
            decision = policy.decision(after: cause, attempt: attempt, using: &generator)
        }
        switch decision {
        case .stop(let error):
            state = .failed(error)
            return .stop
        case .retry(let delay):
            state = .unavailable
            return .reconnect(after: delay)
        }
    }

    /// `disconnect()` was called.
    mutating func disconnectRequested() {
        state = .disconnected
    }

    /// The options cannot work.
    mutating func failed(_ error: ChannelClientError) {
        state = .failed(error)
    }
}
