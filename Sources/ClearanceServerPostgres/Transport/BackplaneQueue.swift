import Clearance
import ClearanceServer
import Logging

/// The messages a node has yet to send, in order. The node's adapter adds to it without
/// waiting; the link's sender takes everything queued at once (so that many messages share a
/// notification). Bounded: beyond `limit` messages (a database that does not keep up, or is
/// away), new ones are dropped and counted, the start of each overflow is logged
/// (`backplane.queue.full`), and a resynchronization is due (``takeResync()``): once the sender
/// has caught up, the node queues its whole state again, which replaces what the other nodes
/// know of it. A node's whole state (``replace(with:)``, ``appendWholeState(_:)``) is never
/// dropped: it is bounded by the hub's own limits, and dropping part of it would leave the
/// others wrong again.
///
/// Each app's events (``ClusterMessage/floodingAppID``) may take at most `perAppLimit` of the
/// queue: past it that app's new events are dropped, counted per app (``dropped(appID:)``) and
/// logged under its id, while the other apps' still go through.
final class BackplaneQueue: Sendable {
    private struct State {
        var messages: [ClusterMessage] = []
        var waiter: CheckedContinuation<[ClusterMessage], Never>?
        var dropped = 0
        /// Dropping since the sender last took the queue (one log line per overflow).
        var overflowing = false
        /// Messages were dropped since the node last queued its whole state.
        var resyncDue = false
        /// The farewell is queued: nothing may follow it (the others forget a node that said bye).
        var closed = false
        /// Each app's events queued now.
        var eventsByApp: [String: Int] = [:]
        /// Each app's events dropped at its part of the queue.
        var droppedByApp: [String: Int] = [:]
        /// The apps dropping since the sender last took the queue (one log line per overflow).
        var overflowingApps: Set<String> = []
        /// Messages handed to the queue, ever; of them, those sent or lost (``sentAll(within:)``).
        var offered: UInt64 = 0
        var settled: UInt64 = 0
        /// Messages that will never be sent: dropped, or replaced by a whole state.
        var lost: UInt64 = 0

        mutating func lose(_ count: Int) {
            lost += UInt64(count)
            settled += UInt64(count)
        }

        /// Everything queued, leaving the queue empty (its storage handed over, not copied).
        mutating func takeAll() -> [ClusterMessage] {
            overflowing = false
            overflowingApps.removeAll()
            eventsByApp.removeAll()
            var batch: [ClusterMessage] = []
            swap(&batch, &messages)
            return batch
        }
    }

    let limit: Int
    /// Most events of one app queued at once.
    let perAppLimit: Int
    private let state = Locked(State())
    private let logger: Logger?

    init(limit: Int = 100_000, perAppLimit: Int? = nil, logger: Logger? = nil) {
        self.limit = limit
        self.perAppLimit = min(perAppLimit ?? limit, limit)
        self.logger = logger
    }

    /// Messages dropped because the queue, or their app's part of it, was full.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Events of `appID` dropped because the app held its part of the queue.
    func dropped(appID: String) -> Int { state.withLock { $0.droppedByApp[appID, default: 0] } }

    /// Messages dropped in all, and each app's events dropped at its part of the queue.
    var drops: (total: Int, byApp: [String: Int]) { state.withLock { ($0.dropped, $0.droppedByApp) } }

    /// Adds `messages` after the queued ones (as many as there is room for).
    func append(_ messages: [ClusterMessage]) {
        enqueue(messages, bounded: true)
    }

    /// Adds the node's whole state after the queued messages, whatever room is left: it replaces
    /// what the other nodes know of this node, so no resynchronization is due any more.
    func appendWholeState(_ messages: [ClusterMessage]) {
        state.withLock { $0.resyncDue = false }
        enqueue(messages, bounded: false)
    }

    /// Adds the last messages of a stopping node (its farewell), whatever room is left; nothing
    /// is queued after them.
    func appendLast(_ messages: [ClusterMessage]) {
        enqueue(messages, bounded: false, closing: true)
    }

    /// Whether messages were dropped since the node last queued its whole state; true once per
    /// overflow (the caller then queues the whole state), never after the farewell.
    func takeResync() -> Bool {
        state.withLock { state in
            defer { state.resyncDue = false }
            return state.resyncDue && !state.closed
        }
    }

    private func enqueue(_ messages: [ClusterMessage], bounded: Bool, closing: Bool = false) {
        guard !messages.isEmpty else { return }
        let (waiter, batch, overflowStarted, appsOverflowing) = state.withLock { state in
            state.offered += UInt64(messages.count)
            guard !state.closed else {
                state.lose(messages.count)
                return (CheckedContinuation<[ClusterMessage], Never>?.none, [ClusterMessage](), false, [String]())
            }
            if closing { state.closed = true }
            var admitted = messages
            var appsOverflowing: [String] = []
            if bounded {
                // Each app's events within its part first: one app's flood leaves the others room.
                admitted = messages.filter { message in
                    guard let appID = message.floodingAppID else { return true }
                    guard state.eventsByApp[appID, default: 0] < perAppLimit else {
                        state.lose(1)
                        state.dropped += 1
                        state.droppedByApp[appID, default: 0] += 1
                        if state.overflowingApps.insert(appID).inserted { appsOverflowing.append(appID) }
                        return false
                    }
                    state.eventsByApp[appID, default: 0] += 1
                    return true
                }
            }
            let room = bounded ? max(0, limit - state.messages.count) : admitted.count
            state.messages.append(contentsOf: admitted.prefix(room))
            let dropped = max(0, admitted.count - room)
            state.dropped += dropped
            state.lose(dropped)
            for message in admitted.dropFirst(room) {
                if let appID = message.floodingAppID { state.eventsByApp[appID, default: 1] -= 1 }
            }
            let overflowStarted = dropped > 0 && !state.overflowing
            if dropped > 0 {
                state.overflowing = true
                // Dropped events change no node's state; a dropped change leaves the others wrong.
                if admitted.dropFirst(room).contains(where: \.changesState) { state.resyncDue = true }
            }
            guard let waiter = state.waiter else { return (nil, [], overflowStarted, appsOverflowing) }
            state.waiter = nil
            return (waiter, state.takeAll(), overflowStarted, appsOverflowing)
        }
        if overflowStarted {
            logger?.error("backplane.queue.full", metadata: ["limit": "\(limit)", "dropped": "\(dropped)"])
        }
        for appID in appsOverflowing {
            logger?.error("backplane.queue.appFull", metadata: ["app_id": "\(appID)", "limit": "\(perAppLimit)"])
        }
        waiter?.resume(returning: batch)
    }

    /// Drops whatever is queued (stale after the link was lost) and queues the node's whole
    /// state (`messages`) instead; after the farewell, keeps the farewell and queues nothing.
    func replace(with messages: [ClusterMessage]) {
        state.withLock { state in
            if !state.closed {
                state.lose(state.messages.count)
                state.messages.removeAll()
                state.eventsByApp.removeAll()
            }
        }
        appendWholeState(messages)
    }

    /// Everything queued, waiting until there is something; empty when cancelled or drained.
    func next() async -> [ClusterMessage] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[ClusterMessage], Never>) in
                let ready: [ClusterMessage]? = state.withLock { state in
                    if !state.messages.isEmpty || state.closed || Task.isCancelled { return state.takeAll() }
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

    /// The sender sent `count` messages it took.
    func sent(_ count: Int) {
        state.withLock { $0.settled += UInt64(count) }
    }

    /// Waits until every message queued before the call was sent: true; false when one of them
    /// may never be (dropped, replaced after the link was lost, its batch's sending failed) or
    /// `timeout` passed first. What the outbox waits for before it removes the rows it delivered:
    /// the other nodes have them then.
    func sentAll(within timeout: Duration) async -> Bool {
        let (target, lostBefore) = state.withLock { ($0.offered, $0.lost) }
        let deadline = ContinuousClock.now + timeout
        while true {
            let (settled, lost) = state.withLock { ($0.settled, $0.lost) }
            if lost != lostBefore { return false }
            if settled >= target { return true }
            guard ContinuousClock.now < deadline else { return false }
            // sleep: the pace of a check (sending takes a database round trip), not a wait.
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Whether the sender waits for messages (for tests).
    var isWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// Whether nothing is queued.
    var isEmpty: Bool { state.withLock { $0.messages.isEmpty } }

    /// Whether the farewell is queued and everything up to it was taken: the sender is done.
    var isDrained: Bool { state.withLock { $0.closed && $0.messages.isEmpty } }
}
