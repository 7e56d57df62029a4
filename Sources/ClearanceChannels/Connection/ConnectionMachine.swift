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

    private(set) var state: ConnectionState = .initialized
    /// Failed attempts since the last established connection.
    private(set) var attempt = 0
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
            return true
        case .connecting, .connected, .unavailable:
            return false
        }
    }

    /// A new socket is being opened after a back-off.
    mutating func reconnecting() {
        if case .unavailable = state { state = .connecting }
    }

    /// `pusher:connection_established` arrived. Returns the new generation.
    mutating func established(socketID: String) -> UInt64 {
        generation &+= 1
        attempt = 0
        state = .connected(socketID: socketID)
        return generation
    }

    /// The socket ended with `cause`.
    mutating func lost(_ cause: DisconnectCause, using generator: inout some RandomNumberGenerator) -> AfterLoss {
        if state.isTerminal { return .stop }
        attempt += 1
        switch policy.decision(after: cause, attempt: attempt, using: &generator) {
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
