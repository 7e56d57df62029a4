import Foundation

/// Events of one target claimed for one POST: the oldest ones waiting, in the order they were
/// queued. Until it is completed, rescheduled or dropped, no other batch of the target is claimed,
/// so a channel's events never overtake each other.
public struct WebhookBatch: Sendable, Hashable {
    /// Where the batch goes.
    public let target: WebhookTargetID
    /// The queue's ids of the events, in order.
    public let ids: [Int64]
    /// The events, in order.
    public let events: [WebhookEvent]
    /// When the first event was queued: the start of the retry window. (The body's `time_ms` is
    /// when it is sent, so that a receiver that checks it is recent accepts a retried batch.)
    public let firstQueuedAt: Date
    /// Failed attempts so far at delivering the target's head.
    public let attempts: Int

    /// Creates a batch.
    public init(target: WebhookTargetID, ids: [Int64], events: [WebhookEvent], firstQueuedAt: Date, attempts: Int) {
        self.target = target
        self.ids = ids
        self.events = events
        self.firstQueuedAt = firstQueuedAt
        self.attempts = attempts
    }
}
