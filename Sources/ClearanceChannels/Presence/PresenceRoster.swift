import Clearance

/// Holds a presence channel's ``PresenceMembers`` and streams ``PresenceChange``s: a state
/// broadcaster whose replayed value is the snapshot, so every new stream starts with the list
/// as it is, taken under the lock that registers it.
final class PresenceRoster: Sendable {
    private let broadcaster = Broadcaster<PresenceChange>(replaying: .snapshot(.empty), bufferLimit: 1024)

    var members: PresenceMembers {
        if case .snapshot(let members) = broadcaster.replayed { return members }
        return .empty
    }

    func subscribe() -> AsyncStream<PresenceChange> { broadcaster.subscribe() }

    /// How many streams of changes are open now.
    var watcherCount: Int { broadcaster.subscriberCount }

    func replace(with members: PresenceMembers) {
        broadcaster.update { replay in
            replay = .snapshot(members)
            return .snapshot(members)
        }
    }

    func add(_ member: PresenceMember) {
        change { members in members.add(member) ? .added(member) : nil }
    }

    func remove(id: String) {
        change { members in members.remove(id: id).map(PresenceChange.removed) }
    }

    func clear() {
        change { members in
            guard members != .empty else { return nil }
            members = .empty
            return .cleared
        }
    }

    func finish() { broadcaster.finish() }

    private func change(_ body: (inout PresenceMembers) -> PresenceChange?) {
        broadcaster.update { replay in
            guard case .snapshot(var members) = replay else { return nil }
            let change = body(&members)
            replay = .snapshot(members)
            return change
        }
    }
}
