import Foundation

/// An event waiting for delivery to one target.
public struct QueuedWebhookEvent: Sendable, Hashable {
    /// Where it goes.
    public let target: WebhookTargetID
    /// What happened.
    public let event: WebhookEvent
    /// When it was queued (its webhook's `time_ms` when it opens a batch).
    public let queuedAt: Date

    /// Creates a queued event.
    public init(target: WebhookTargetID, event: WebhookEvent, queuedAt: Date) {
        self.target = target
        self.event = event
        self.queuedAt = queuedAt
    }
}
