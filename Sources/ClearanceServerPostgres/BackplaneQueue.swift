import Clearance

/// The messages a node has yet to send, in order. The node's adapter adds to it without
/// waiting; the link's sender takes everything queued at once (so that many messages share a
/// notification). Bounded: beyond `limit` messages (a database that does not keep up, or is
/// away), new ones are dropped and counted; a node that reconnects sends its whole state anyway.
final class BackplaneQueue: Sendable {
    private struct State {
        var messages: [BackplaneMessage] = []
        var waiter: CheckedContinuation<[BackplaneMessage], Never>?
        var dropped = 0
    }

    let limit: Int
    private let state = Locked(State())

    init(limit: Int = 100_000) {
        self.limit = limit
    }

    /// Messages dropped because the queue was full.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Adds `messages` after the queued ones.
    func append(_ messages: [BackplaneMessage]) {
        guard !messages.isEmpty else { return }
        let (waiter, batch) = state.withLock { state -> (CheckedContinuation<[BackplaneMessage], Never>?, [BackplaneMessage]) in
            let room = max(0, limit - state.messages.count)
            state.messages.append(contentsOf: messages.prefix(room))
            state.dropped += max(0, messages.count - room)
            guard let waiter = state.waiter else { return (nil, []) }
            state.waiter = nil
            defer { state.messages.removeAll(keepingCapacity: true) }
            return (waiter, state.messages)
        }
        waiter?.resume(returning: batch)
    }

    /// Drops whatever is queued (stale after the link was lost) and queues `messages` instead.
    func replace(with messages: [BackplaneMessage]) {
        state.withLock { $0.messages.removeAll() }
        append(messages)
    }

    /// Everything queued, waiting until there is something; empty when cancelled.
    func next() async -> [BackplaneMessage] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[BackplaneMessage], Never>) in
                let ready: [BackplaneMessage]? = state.withLock { state in
                    if !state.messages.isEmpty || Task.isCancelled {
                        defer { state.messages.removeAll(keepingCapacity: true) }
                        return state.messages
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: [])
        }
    }

    /// Whether nothing is queued.
    var isEmpty: Bool { state.withLock { $0.messages.isEmpty } }
}
