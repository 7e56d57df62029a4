import WSClient

/// The socket the client is attached to now: its writer, the queue of work that lives and dies
/// with it (authorizations), and its activity monitor.
struct LiveSocket: Sendable {
    /// Unique per opened socket (unlike the generation, which counts established connections).
    let token: UInt64
    let writer: WebSocketOutboundWriter
    let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    let openedAt: ContinuousClock.Instant
    var monitor: ActivityMonitor
    /// Set once `pusher:connection_established` arrived.
    var established = false
    /// Why the client itself ended the socket, if it did.
    var endCause: DisconnectCause?
}
