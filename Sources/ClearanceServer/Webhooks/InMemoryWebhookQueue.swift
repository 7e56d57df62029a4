import Clearance
import Foundation

/// A ``WebhookQueue`` in this process's memory, for a single hub: what is queued when the
/// process dies is lost. Holds at most `limit` events; past it the oldest go.
public final class InMemoryWebhookQueue: WebhookQueue {
    private struct Entry {
        let id: Int64
        let event: WebhookEvent
        let queuedAt: Date
    }

    private struct TargetQueue {
        var entries: [Entry] = []
        var start = 0
        var inFlight = false
        var retryAt: Date?
        var attempts = 0

        var count: Int { entries.count - start }
        var head: Entry? { start < entries.count ? entries[start] : nil }

        mutating func removeHead() {
            start += 1
            if start > 64, start * 2 > entries.count {
                entries.removeFirst(start)
                start = 0
            }
        }
    }

    private struct State {
        var targets: [WebhookTargetID: TargetQueue] = [:]
        var nextID: Int64 = 1
        var count = 0
    }

    private let limit: Int
    private let state = Locked(State())

    /// A queue holding at most `limit` events.
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    public func enqueue(_ events: [QueuedWebhookEvent]) -> Int {
        state.withLock { state in
            for queued in events {
                state.targets[queued.target, default: TargetQueue()].entries.append(Entry(id: state.nextID, event: queued.event, queuedAt: queued.queuedAt))
                state.nextID += 1
                state.count += 1
            }
            var dropped = 0
            while state.count > limit, let oldest = state.targets.filter({ $0.value.head != nil }).min(by: { $0.value.head!.id < $1.value.head!.id })?.key {
                state.targets[oldest]!.removeHead()
                state.count -= 1
                dropped += 1
            }
            return dropped
        }
    }

    public func claim(limit: Int, window: Duration, flushing: Bool, now: Date) -> [WebhookBatch] {
        let windowSeconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        return state.withLock { state in
            var batches: [WebhookBatch] = []
            for (target, queue) in state.targets.sorted(by: { $0.key < $1.key }) {
                guard !queue.inFlight, let head = queue.head, (queue.retryAt ?? now) <= now else { continue }
                guard flushing || queue.attempts > 0 || queue.count >= limit || now.timeIntervalSince(head.queuedAt) >= windowSeconds else { continue }
                let entries = queue.entries[queue.start..<min(queue.entries.count, queue.start + limit)]
                state.targets[target]!.inFlight = true
                batches.append(WebhookBatch(
                    target: target, ids: entries.map(\.id), events: entries.map(\.event), firstQueuedAt: head.queuedAt, attempts: queue.attempts))
            }
            return batches
        }
    }

    public func complete(_ batch: WebhookBatch) {
        finish(batch)
    }

    public func drop(_ batch: WebhookBatch) {
        finish(batch)
    }

    public func reschedule(_ batch: WebhookBatch, retryAt: Date) {
        state.withLock { state in
            guard state.targets[batch.target] != nil else { return }
            state.targets[batch.target]!.inFlight = false
            state.targets[batch.target]!.attempts = batch.attempts + 1
            state.targets[batch.target]!.retryAt = retryAt
        }
    }

    public func pendingCount() -> Int {
        state.withLock { $0.count }
    }

    /// Removes the batch's events that are still at the head (the bound may have dropped some).
    private func finish(_ batch: WebhookBatch) {
        state.withLock { state in
            guard var queue = state.targets[batch.target] else { return }
            let ids = Set(batch.ids)
            while let head = queue.head, ids.contains(head.id) {
                queue.removeHead()
                state.count -= 1
            }
            queue.inFlight = false
            queue.attempts = 0
            queue.retryAt = nil
            state.targets[batch.target] = queue.count == 0 ? nil : queue
        }
    }
}
