import Foundation

/// An event waiting for delivery to one target.
public struct QueuedWebhookEvent: Sendable, Hashable {
    /// Where it goes.
    public let target: WebhookTargetID
    /// What happened.
    public let event: WebhookEvent
    /// When it was queued (its webhook's `time_ms` when it opens a batch).
    public let queuedAt: Date
    /// What it costs a queue that holds it: its JSON text plus 128 bytes of bookkeeping
    /// (``WebhookQueueBounds/maxBytes``).
    public let bytes: Int

    /// Creates a queued event; `bytes` is measured from the event when not given.
    public init(target: WebhookTargetID, event: WebhookEvent, queuedAt: Date, bytes: Int? = nil) {
        self.target = target
        self.event = event
        self.queuedAt = queuedAt
        self.bytes = bytes ?? event.encodedBytes + Self.bookkeeping
    }

    /// Bytes counted for each event beside its JSON text.
    public static let bookkeeping = 128
}
