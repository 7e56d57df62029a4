import ClearanceWire

/// Who is online, and who watches whom: the watchlist side of a ``ChannelTable``.
///
/// A user is online while a connection is signed in as them on any node (this one's, and what the
/// other nodes reported). A connection that signed in with a watchlist is told, in one
/// `pusher_internal:watchlist_events` frame each time, which watched users are online right
/// after it signed in, then when one comes online (their first connection anywhere) or goes
/// offline (their last). Watchers are indexed by the watched user: a sign-in costs a lookup per
/// watched id and one delivery per watcher, never a scan of the connections.
package struct OnlineUsers: Sendable {
    /// A user of an app.
    package struct UserKey: Hashable, Sendable, Comparable {
        package let appID: String
        package let userID: String

        package init(appID: String, userID: String) {
            self.appID = appID
            self.userID = userID
        }

        package static func < (lhs: UserKey, rhs: UserKey) -> Bool {
            (lhs.appID, lhs.userID) < (rhs.appID, rhs.userID)
        }
    }

    private struct Watcher {
        let outbox: ConnectionOutbox
        let watched: [UserKey]
    }

    /// This node's connections signed in as each user.
    private var local: [UserKey: Set<String>] = [:]
    /// The user each of this node's connections signed in as.
    private var signedIn: [String: UserKey] = [:]
    /// The users online on each other node.
    private var remote: [String: Set<UserKey>] = [:]
    /// This node's watchers of each user, by socket id.
    private var watchers: [UserKey: Set<String>] = [:]
    private var watching: [String: Watcher] = [:]

    package init() {}

    /// Whether the user has a connection on any node.
    package func isOnline(_ user: UserKey) -> Bool {
        local[user] != nil || remote.values.contains { $0.contains(user) }
    }

    /// The users online through this node.
    package var localUsers: Set<UserKey> { Set(local.keys) }

    /// The connection signed in as `userID` of `appID` watching `watchlist`: tells its watchers
    /// here when the user was offline everywhere, tells the connection which watched users are
    /// online now, and returns whether the user is now online through this node for the first
    /// time (for the other nodes). A second sign-in of the same connection only replaces its
    /// watchlist.
    package mutating func signIn(socketID: String, appID: String, userID: String, watchlist: [String], outbox: ConnectionOutbox) -> Bool {
        let user = UserKey(appID: appID, userID: userID)
        var first = false
        if signedIn[socketID] == nil {
            let wasOnline = isOnline(user)
            signedIn[socketID] = user
            first = local[user] == nil
            local[user, default: []].insert(socketID)
            if !wasOnline { announce(online: true, user) }
        }
        unwatch(socketID)
        var seen = Set<String>()
        let watched = watchlist.filter { seen.insert($0).inserted }.map { UserKey(appID: appID, userID: $0) }
        guard !watched.isEmpty else { return first }
        watching[socketID] = Watcher(outbox: outbox, watched: watched)
        for key in watched { watchers[key, default: []].insert(socketID) }
        let online = watched.filter(isOnline).map(\.userID)
        if !online.isEmpty { outbox.deliver(.frame(PusherFrame.watchlistEvents(online: online, offline: []))) }
        return first
    }

    /// The connection ended: it watches no more, and when it was the user's last connection
    /// here, the user is offline through this node (the result, for the other nodes) and, when
    /// no other node has them, offline: its watchers here are told.
    package mutating func remove(socketID: String) -> UserKey? {
        unwatch(socketID)
        guard let user = signedIn.removeValue(forKey: socketID) else { return nil }
        local[user]?.remove(socketID)
        guard local[user]?.isEmpty == true else { return nil }
        local[user] = nil
        if !isOnline(user) { announce(online: false, user) }
        return user
    }

    /// Another node reports the user online (`true`) or offline through it.
    package mutating func apply(online: Bool, _ user: UserKey, from node: String) {
        let was = isOnline(user)
        if online {
            remote[node, default: []].insert(user)
        } else {
            remote[node]?.remove(user)
            if remote[node]?.isEmpty == true { remote[node] = nil }
        }
        if isOnline(user) != was { announce(online: !was, user) }
    }

    /// Replaces the users `node` has online (its whole state again, or none when it left),
    /// telling watchers only about real arrivals and departures.
    package mutating func replace(node: String, with users: Set<UserKey>) {
        let old = remote[node] ?? []
        let changed = old.symmetricDifference(users)
        let before = Dictionary(uniqueKeysWithValues: changed.map { ($0, isOnline($0)) })
        remote[node] = users.isEmpty ? nil : users
        for user in changed.sorted() where isOnline(user) != before[user] {
            announce(online: !before[user]!, user)
        }
    }

    private mutating func unwatch(_ socketID: String) {
        guard let watcher = watching.removeValue(forKey: socketID) else { return }
        for key in watcher.watched {
            watchers[key]?.remove(socketID)
            if watchers[key]?.isEmpty == true { watchers[key] = nil }
        }
    }

    /// Tells this node's watchers of `user` that they came online or went offline.
    private func announce(online: Bool, _ user: UserKey) {
        guard let sockets = watchers[user], !sockets.isEmpty else { return }
        let frame = online
            ? PusherFrame.watchlistEvents(online: [user.userID], offline: [])
            : PusherFrame.watchlistEvents(online: [], offline: [user.userID])
        let delivery = ConnectionOutbox.Delivery.frame(frame)
        for socketID in sockets { watching[socketID]?.outbox.deliver(delivery) }
    }
}
