import Synchronization

/// Holds a presence channel's ``PresenceMembers`` and streams ``PresenceChange``s; every new
/// stream starts with a snapshot taken under the lock that registers it.
final class PresenceRoster: Sendable {
    private struct State {
        var members = PresenceMembers.empty
        var next = 0
        var continuations: [Int: AsyncStream<PresenceChange>.Continuation] = [:]
    }

    private let state = Mutex(State())

    var members: PresenceMembers { state.withLock { $0.members } }

    func subscribe() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream<PresenceChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = state.withLock { s -> Int in
            continuation.yield(.snapshot(s.members))
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func replace(with members: PresenceMembers) {
        emit(.snapshot(members)) { $0 = members }
    }

    func add(_ member: PresenceMember) {
        state.withLock { s in
            guard s.members.add(member) else { return }
            for continuation in s.continuations.values { continuation.yield(.added(member)) }
        }
    }

    func remove(id: String) {
        state.withLock { s in
            guard let removed = s.members.remove(id: id) else { return }
            for continuation in s.continuations.values { continuation.yield(.removed(removed)) }
        }
    }

    func clear() {
        state.withLock { s in
            guard s.members != .empty else { return }
            s.members = .empty
            for continuation in s.continuations.values { continuation.yield(.cleared) }
        }
    }

    func finish() {
        let continuations = state.withLock { s -> [AsyncStream<PresenceChange>.Continuation] in
            defer { s.continuations = [:] }
            return Array(s.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    private func emit(_ change: PresenceChange, _ update: (inout PresenceMembers) -> Void) {
        state.withLock { s in
            update(&s.members)
            for continuation in s.continuations.values { continuation.yield(change) }
        }
    }
}
