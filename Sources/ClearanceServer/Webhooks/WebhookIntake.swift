/// The events the hub emitted that its ``WebhookQueue`` has not taken yet (a queue in a database
/// that is away), bounded in events and bytes as the queue is in all: past a bound the oldest go.
struct WebhookIntake: Sendable {
    private(set) var events: [QueuedWebhookEvent] = []
    private(set) var bytes = 0

    /// Appends `queued`; returns the oldest events dropped to stay within `limits`.
    mutating func append(_ queued: [QueuedWebhookEvent], limits: HubLimits) -> [QueuedWebhookEvent] {
        events.append(contentsOf: queued)
        bytes += queued.reduce(0) { $0 + $1.bytes }
        return trim(limits)
    }

    /// Puts back, first in line, what the queue could not take; returns what was dropped.
    mutating func putBack(_ batch: [QueuedWebhookEvent], limits: HubLimits) -> [QueuedWebhookEvent] {
        events.insert(contentsOf: batch, at: 0)
        bytes += batch.reduce(0) { $0 + $1.bytes }
        return trim(limits)
    }

    /// Everything waiting, leaving the intake empty.
    mutating func takeAll() -> [QueuedWebhookEvent] {
        defer {
            events.removeAll(keepingCapacity: true)
            bytes = 0
        }
        return events
    }

    private mutating func trim(_ limits: HubLimits) -> [QueuedWebhookEvent] {
        var excess = max(0, events.count - limits.webhooks.maxQueuedWebhooks)
        var excessBytes = bytes - limits.webhooks.maxQueuedWebhookBytes
        var index = 0
        while index < events.count, excess > index || excessBytes > 0 {
            excessBytes -= events[index].bytes
            index += 1
        }
        excess = index
        guard excess > 0 else { return [] }
        let dropped = Array(events.prefix(excess))
        events.removeFirst(excess)
        bytes -= dropped.reduce(0) { $0 + $1.bytes }
        return dropped
    }
}
