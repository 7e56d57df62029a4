import NIOCore

/// What a connection's main loop reacts to, in arrival order.
enum ConnectionInput: Sendable {
    /// A text message from the client.
    case text(String)
    /// A binary message from the client (not part of the protocol).
    case binary
    /// The client's side ended (close frame, disconnect or read error).
    case inboundEnded
    /// Time to check the timers.
    case tick
    /// The hub is stopping: close with this code.
    case shutdown(HubCloseCode)
    /// The outbox overflowed: the client reads too slowly.
    case outboxOverflow
}
