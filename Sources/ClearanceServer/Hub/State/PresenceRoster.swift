import ClearanceSigning

/// The members of one presence channel, counted per user: each user is present while at least
/// one of their connections is subscribed.
///
/// A plain value: the hub's `ChannelTable` holds one per presence channel, and tests drive it
/// directly.
struct PresenceRoster: Sendable, Equatable {
    enum JoinResult: Equatable {
        /// The user was not present: others must get `member_added`.
        case newMember
        /// The user was already present through another connection.
        case additionalConnection
        /// This connection had already joined.
        case alreadyJoined
        /// The channel is at its limit of distinct users.
        case full
    }

    enum LeaveResult: Equatable {
        /// The user's last connection left: others must get `member_removed`.
        case memberLeft(userID: String)
        /// The user is still present through another connection.
        case connectionLeft
        /// The connection was not in the channel.
        case notJoined
    }

    private struct Entry: Equatable {
        var member: PresenceMember
        var sockets: Set<String>
    }

    private var entries: [String: Entry] = [:]
    private var arrivalOrder: [String] = []
    private var userBySocket: [String: String] = [:]

    /// The distinct users, in the order they arrived.
    var members: [PresenceMember] { arrivalOrder.map { entries[$0]!.member } }

    /// The number of distinct users.
    var count: Int { arrivalOrder.count }

    /// The number of joined connections.
    var connectionCount: Int { userBySocket.count }

    var isEmpty: Bool { userBySocket.isEmpty }

    /// Whether the user is present.
    func contains(userID: String) -> Bool { entries[userID] != nil }

    /// Adds `socketID` as a connection of `member.id`. The first connection of a user
    /// decides the user's info; later ones do not change it.
    mutating func join(socketID: String, member: PresenceMember, limit: Int) -> JoinResult {
        if userBySocket[socketID] != nil { return .alreadyJoined }
        if var entry = entries[member.id] {
            entry.sockets.insert(socketID)
            entries[member.id] = entry
            userBySocket[socketID] = member.id
            return .additionalConnection
        }
        guard arrivalOrder.count < limit else { return .full }
        entries[member.id] = Entry(member: member, sockets: [socketID])
        arrivalOrder.append(member.id)
        userBySocket[socketID] = member.id
        return .newMember
    }

    /// Removes `socketID`.
    mutating func leave(socketID: String) -> LeaveResult {
        guard let userID = userBySocket.removeValue(forKey: socketID), var entry = entries[userID] else {
            return .notJoined
        }
        entry.sockets.remove(socketID)
        if entry.sockets.isEmpty {
            entries[userID] = nil
            arrivalOrder.removeAll { $0 == userID }
            return .memberLeft(userID: userID)
        }
        entries[userID] = entry
        return .connectionLeft
    }
}
