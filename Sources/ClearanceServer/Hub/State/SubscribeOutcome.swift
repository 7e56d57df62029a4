/// What became of a connection's subscription to a channel, as the hub's channel state decided it.
public enum SubscribeOutcome: Sendable, Hashable {
    /// The connection is now subscribed; `subscription_succeeded` (and `member_added` for a
    /// new presence user) were delivered.
    case subscribed
    /// The connection is now subscribed to a cache channel that keeps no event:
    /// `subscription_succeeded` was delivered, then `pusher:cache_miss`.
    case subscribedWithoutCachedEvent
    /// The connection was already subscribed; `subscription_succeeded` was delivered again and
    /// the membership did not change.
    case alreadySubscribed
    /// The presence channel already has the maximum number of distinct users; nothing changed
    /// and nothing was delivered.
    case presenceChannelFull
    /// The connection is not registered (it is closing); nothing changed.
    case unknownConnection

    /// Whether the connection is now subscribed and was not before.
    public var isNewSubscription: Bool {
        switch self {
        case .subscribed, .subscribedWithoutCachedEvent: true
        case .alreadySubscribed, .presenceChannelFull, .unknownConnection: false
        }
    }
}
