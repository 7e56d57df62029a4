import Foundation

/// Where webhook events wait until the hub's dispatcher delivers them: per target, in the
/// order they were queued, one batch of a target in flight at a time.
///
/// ``InMemoryWebhookQueue`` serves one hub; a cluster keeps its queue in its database, so that
/// what a node queued is delivered by another when that node dies.
public protocol WebhookQueue: Sendable {
    /// Appends `events`, in order. Returns the older events dropped, per app, to stay within
    /// `bounds`: past an app's bound its own oldest go; past the hub's, older events go (the
    /// in-memory queue takes them from the app that holds the most bytes).
    func enqueue(_ events: [QueuedWebhookEvent], within bounds: WebhookQueueBounds) async throws -> WebhookDrops

    /// Claims the batches due now: for each target with nothing in flight and no retry pending,
    /// its oldest events (at most `limit`), once the oldest has waited `window` (or at once when
    /// `limit` are waiting or `flushing`).
    func claim(limit: Int, window: Duration, flushing: Bool, now: Date) async throws -> [WebhookBatch]

    /// The batch was delivered: its events leave the queue.
    func complete(_ batch: WebhookBatch) async throws

    /// The batch failed: the target's head is tried again (with what joined it since) at `retryAt`.
    func reschedule(_ batch: WebhookBatch, retryAt: Date) async throws

    /// The batch failed for the last time: its events leave the queue undelivered.
    func drop(_ batch: WebhookBatch) async throws

    /// Events waiting (those in flight included).
    func pendingCount() async throws -> Int

    /// How often a dispatcher asks for due batches (50 ms by default: a queue in memory costs
    /// nothing to ask; one in a database should be asked less often).
    var pollInterval: Duration { get }
}

extension WebhookQueue {
    /// 50 ms.
    public var pollInterval: Duration { .milliseconds(50) }
}
