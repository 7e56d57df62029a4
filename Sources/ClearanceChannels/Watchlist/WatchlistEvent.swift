/// Users of the signed-in user's watchlist who came online or went offline, as delivered by
/// ``ChannelClient/watchlistEvents``.
///
/// The watchlist is the `"watchlist"` array of user ids in the signed `user_data` of
/// ``ChannelClient/signIn()``. The server sends one ``Kind/online`` event right after the sign-in
/// listing the watched users who are online now (none when nobody is), then an ``Kind/online``
/// when a watched user's first connection signs in and an ``Kind/offline`` when their last one
/// closes. pusher-js calls it `pusher.user.watchlist.bind("online" | "offline", …)`.
public struct WatchlistEvent: Sendable, Hashable {
    /// Whether the users came online or went offline.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The users are online (signed in on at least one connection).
        case online
        /// The users went offline (their last connection closed).
        case offline
    }

    /// Online or offline.
    public let kind: Kind
    /// The watched users it is about, in the server's order.
    public let userIDs: [String]

    /// Creates an event.
    public init(kind: Kind, userIDs: [String]) {
        self.kind = kind
        self.userIDs = userIDs
    }
}

extension WatchlistEvent: CustomStringConvertible {
    public var description: String { "\(kind.rawValue)(\(userIDs.joined(separator: ", ")))" }
}
