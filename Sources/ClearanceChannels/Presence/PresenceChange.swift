/// A change to a presence channel's member list, as delivered by ``PusherChannel/members``.
public enum PresenceChange: Sendable, Hashable {
    /// The whole list: first on every new stream, then after each (re)subscription.
    case snapshot(PresenceMembers)
    /// Someone joined.
    case added(PresenceMember)
    /// Someone left.
    case removed(PresenceMember)
    /// The connection was lost: the list is empty until the channel is subscribed again.
    case cleared
}
