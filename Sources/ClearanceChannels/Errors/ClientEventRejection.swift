/// Why ``PusherChannel/trigger(_:data:)`` refused to send a client event (the protocol's rules).
public enum ClientEventRejection: String, Sendable, Hashable, CaseIterable {
    /// The event name does not start with `client-`.
    case invalidName
    /// Client events are only allowed on private and presence channels.
    case channelKindNotAllowed
    /// Client events are never allowed on encrypted channels.
    case encryptedChannel
    /// The channel is not subscribed (yet).
    case notSubscribed
    /// The client is not connected.
    case notConnected
    /// More than 10 client events in one second on this connection.
    case rateLimited
    /// The data is larger than 10 KB.
    case dataTooLarge
    /// The data could not be encoded as JSON.
    case unencodableData

    /// A human sentence.
    public var message: String {
        switch self {
        case .invalidName: "client event names must start with \"client-\""
        case .channelKindNotAllowed: "client events are only allowed on private and presence channels"
        case .encryptedChannel: "client events are not allowed on encrypted channels"
        case .notSubscribed: "the channel is not subscribed"
        case .notConnected: "the client is not connected"
        case .rateLimited: "at most 10 client events per second may be sent on a connection"
        case .dataTooLarge: "event data may be at most 10 KB"
        case .unencodableData: "the event data could not be encoded as JSON"
        }
    }
}
