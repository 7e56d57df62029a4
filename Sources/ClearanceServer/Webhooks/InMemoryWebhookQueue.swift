import Clearance
import Foundation
import NIOCore

/// A ``WebhookQueue`` in this process's memory, for a single hub: what is queued when the
/// process dies is lost. Holds at most what each ``enqueue(_:within:)`` is given as bounds, per
/// app and in all, in events and in bytes; past a bound the oldest go (of that app, or of the
/// app holding the most bytes).
public final class InMemoryWebhookQueue: WebhookQueue {
    private struct Entry {
        let id: Int64
        let event: WebhookEvent
        let queuedAt: Date
        let bytes: Int
    }

    /// What one app holds.
    private struct Usage {
        var events = 0
        var bytes = 0
    }

    /// One target's events, oldest first. A ring buffer: an event leaves it (delivered, or
    /// dropped by a bound) in O(1) and its memory goes with it, so the queue never holds more
    /// than its bounds count.
    private struct TargetQueue {
        var entries = CircularBuffer<Entry>()
        var inFlight = false
        var retryAt: Date?
        var attempts = 0

        var count: Int { entries.count }
        var head: Entry? { entries.first }

        mutating func removeHead() {
            entries.removeFirst()
        }
    }

    private struct State {
        var targets: [WebhookTargetID: TargetQueue] = [:]
        var nextID: Int64 = 1
        var count = 0
        var bytes = 0
        var apps: [String: Usage] = [:]

        /// Removes the oldest event of `appID` (of any app when nil); false when it has none.
        mutating func dropOldest(of appID: String?) -> Bool {
            let oldest = targets.lazy.filter { appID == nil || $0.key.appID == appID }
                .compactMap { target, queue in queue.head.map { (target, $0) } }
                .min { $0.1.id < $1.1.id }
            guard let (target, entry) = oldest else { return false }
            targets[target]!.removeHead()
            if targets[target]!.count == 0, !targets[target]!.inFlight { targets[target] = nil }
            removed(entry, of: target.appID)
            return true
        }

        mutating func removed(_ entry: Entry, of appID: String) {
            count -= 1
            bytes -= entry.bytes
            apps[appID, default: Usage()].events -= 1
            apps[appID, default: Usage()].bytes -= entry.bytes
            if apps[appID]!.events <= 0 { apps[appID] = nil }
        }
    }

    private let state = Locked(State())

    /// An empty queue.
    public init() {}

    /// Events queued now.
    public var count: Int { state.withLock { $0.count } }

    /// Bytes queued now (each event's ``QueuedWebhookEvent/bytes``).
    public var bytes: Int { state.withLock { $0.bytes } }

    public func enqueue(_ events: [QueuedWebhookEvent], within bounds: WebhookQueueBounds) -> WebhookDrops {
        state.withLock { state in
            var dropped: [String: Int] = [:]
            for queued in events {
                let appID = queued.target.appID
                state.targets[queued.target, default: TargetQueue()].entries.append(
                    Entry(id: state.nextID, event: queued.event, queuedAt: queued.queuedAt, bytes: queued.bytes))
                state.nextID += 1
                state.count += 1
                state.bytes += queued.bytes
                state.apps[appID, default: Usage()].events += 1
                state.apps[appID, default: Usage()].bytes += queued.bytes
                // The app's own bound first: its flood makes room among its own events.
                while let usage = state.apps[appID], usage.events > bounds.maxEventsPerApp || usage.bytes > bounds.maxBytesPerApp,
                      state.dropOldest(of: appID) {
                    dropped[appID, default: 0] += 1
                }
            }
            // Then the hub's: the app holding the most bytes makes room.
            while state.count > bounds.maxEvents || state.bytes > bounds.maxBytes,
                  let largest = state.apps.max(by: { $0.value.bytes < $1.value.bytes })?.key, state.dropOldest(of: largest) {
                dropped[largest, default: 0] += 1
            }
            return WebhookDrops(byApp: dropped)
        }
    }

    public func claim(limit: Int, window: Duration, flushing: Bool, now: Date) -> [WebhookBatch] {
        let windowSeconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        return state.withLock { state in
            var batches: [WebhookBatch] = []
            for (target, queue) in state.targets.sorted(by: { $0.key < $1.key }) {
                guard !queue.inFlight, let head = queue.head, (queue.retryAt ?? now) <= now else { continue }
                guard flushing || queue.attempts > 0 || queue.count >= limit || now.timeIntervalSince(head.queuedAt) >= windowSeconds else { continue }
                let entries = queue.entries.prefix(limit)
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
            // Taken out of the table while it changes, so that it is the ring's one owner and
            // each removal happens in place (a copy would share the storage and copy it whole).
            guard var queue = state.targets.removeValue(forKey: batch.target) else { return }
            let ids = Set(batch.ids)
            while let head = queue.head, ids.contains(head.id) {
                queue.removeHead()
                state.removed(head, of: batch.target.appID)
            }
            guard queue.count > 0 else { return }
            queue.inFlight = false
            queue.attempts = 0
            queue.retryAt = nil
            state.targets[batch.target] = queue
        }
    }
}
