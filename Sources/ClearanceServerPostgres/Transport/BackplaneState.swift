/// Where a node's link to the other nodes stands, as ``PostgresCluster/states`` publishes it.
public enum BackplaneState: Sendable, Equatable, CustomStringConvertible {
    /// Connecting to the database (at start, and again after losing it).
    case connecting
    /// Connected and listening: events and state cross to and from the other nodes.
    case connected
    /// The database could not be reached or the link broke; `reason` says why. The node keeps
    /// serving its own connections and tries again after the reconnect delay.
    case unavailable(reason: String)
    /// The hub stopped; the node said goodbye.
    case stopped

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case let .unavailable(reason): "unavailable(\(reason))"
        case .stopped: "stopped"
        }
    }
}
