/// Where one channel's subscription stands.
public enum ChannelSubscriptionState: Sendable, CustomStringConvertible {
    /// Waiting: for a connection, for the authorizer, or for the server's confirmation.
    case pending
    /// The server confirmed the subscription.
    case subscribed
    /// The subscription failed; the error says why. It is tried again after the next reconnect.
    case failed(ChannelError)
    /// ``PusherChannel/unsubscribe()`` was called; the handle is finished.
    case unsubscribed

    /// True in ``subscribed``.
    public var isSubscribed: Bool {
        if case .subscribed = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .pending: "pending"
        case .subscribed: "subscribed"
        case .failed(let error): "failed(\(error.qualifiedCode))"
        case .unsubscribed: "unsubscribed"
        }
    }
}
