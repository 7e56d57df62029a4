/// Decides whether an authorization may still be sent: only when it was requested for the socket
/// that is connected now.
///
/// The socket id changes on every reconnect, and an auth response can arrive after the
/// connection it was asked for is gone. pusher-js and pusher-websocket-swift then send a signature
/// for the old socket id on the new connection; Clearance discards it here instead. A ticket names
/// the socket id *and* the connection generation, so even a server that reused a socket id would
/// not get an authorization made for an earlier connection.
public struct StaleAuthorizationFilter: Sendable, Hashable {
    /// What an authorization was requested for.
    public struct Ticket: Sendable, Hashable {
        /// The socket id the authorization signs.
        public let socketID: String
        /// The connection it was requested on.
        public let generation: UInt64
    }

    /// The connection that is established now, if any.
    public private(set) var current: Ticket?
    /// How many authorizations were discarded as stale.
    public private(set) var discarded = 0

    /// Creates a filter with no connection.
    public init() {}

    /// A connection was established: only its authorizations pass from now on.
    public mutating func connected(socketID: String, generation: UInt64) {
        current = Ticket(socketID: socketID, generation: generation)
    }

    /// The connection was lost: nothing passes until the next one.
    public mutating func disconnected() {
        current = nil
    }

    /// The ticket to attach to an authorization requested now, or nil when not connected.
    public var ticket: Ticket? { current }

    /// Whether an authorization requested with `ticket` may be sent now. Counts those that may not.
    public mutating func admit(_ ticket: Ticket) -> Bool {
        guard ticket == current else {
            discarded += 1
            return false
        }
        return true
    }
}
