import Clearance
import Logging

/// The messages a node has yet to send, in order. The node's adapter adds to it without
/// waiting; the link's sender takes everything queued at once (so that many messages share a
/// notification). Bounded: beyond `limit` messages (a database that does not keep up, or is
/// away), new ones are dropped and counted, and the start of each overflow is logged
/// (`backplane.queue.full`); a node that reconnects sends its whole state anyway.
final class BackplaneQueue: Sendable {
    private struct State {
        var messages: [BackplaneMessage] = []
        var waiter: CheckedContinuation<[BackplaneMessage], Never>?
        var dropped = 0
        /// Dropping since the sender last took the queue (one log line per overflow).
        var overflowing = false
    }

    let limit: Int
    private let state = Locked(State())
    private let logger: Logger?

    init(limit: Int = 100_000, logger: Logger? = nil) {
        self.limit = limit
        self.logger = logger
    }

    /// Messages dropped because the queue was full.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Adds `messages` after the queued ones.
    func append(_ messages: [BackplaneMessage]) {
        guard !messages.isEmpty else { return }
        let (waiter, batch, overflowStarted) = state.withLock { state -> (CheckedContinuation<[BackplaneMessage], Never>?, [BackplaneMessage], Bool) in
            let room = max(0, limit - state.messages.count)
            state.messages.append(contentsOf: messages.prefix(room))
            let dropped = max(0, messages.count - room)
            state.dropped += dropped
            let overflowStarted = dropped > 0 && !state.overflowing
            if dropped > 0 { state.overflowing = true }
            guard let waiter = state.waiter else { return (nil, [], overflowStarted) }
            state.waiter = nil
            state.overflowing = false
            defer { state.messages.removeAll(keepingCapacity: true) }
            return (waiter, state.messages, overflowStarted)
        }
        if overflowStarted {
            logger?.error("backplane.queue.full", metadata: ["limit": "\(limit)", "dropped": "\(dropped)"])
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
                        state.overflowing = false
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
