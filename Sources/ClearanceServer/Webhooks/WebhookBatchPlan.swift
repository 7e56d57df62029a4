/// What one POST of a claimed ``WebhookBatch`` carries: the longest run of its events, from the
/// oldest, whose body stays within a byte bound. On the way it passes over, and so removes from
/// the queue with the events sent, the events that must never be sent: those the target no
/// longer wants (its app's configuration changed) and those too large to fit any body.
struct WebhookBatchPlan: Sendable {
    /// Bytes of a body beside its events: `{"events":[` … `],"time_ms":…}` and the commas.
    static let envelopeBytes = 64

    /// The events to send, in order.
    private(set) var events: [WebhookEvent] = []
    /// The claimed events this POST settles (sent or passed over): what leaves the queue once it
    /// is done with.
    let covered: WebhookBatch
    /// Events passed over because the target no longer wants them.
    private(set) var unwanted = 0
    /// Events passed over because alone they would pass `largest`.
    private(set) var tooLarge = 0
    /// The bytes of the body, as estimated.
    private(set) var bytes = WebhookBatchPlan.envelopeBytes

    /// - Parameters:
    ///   - cap: The bound for this body (at most `largest`; smaller after a 413).
    ///   - largest: ``HubWebhookLimits/maxWebhookBatchBytes``: an event that cannot fit a body of it
    ///     alone is never sent.
    init(_ batch: WebhookBatch, target: WebhookTarget, cap: Int, largest: Int) {
        var count = 0
        for event in batch.events {
            if !target.wants(event) {
                unwanted += 1
            } else {
                let size = event.encodedBytes + 1
                if Self.envelopeBytes + size > largest {
                    tooLarge += 1
                } else if !events.isEmpty, bytes + size > cap {
                    break
                } else {
                    events.append(event)
                    bytes += size
                }
            }
            count += 1
        }
        covered = WebhookBatch(
            target: batch.target, ids: Array(batch.ids.prefix(count)), events: Array(batch.events.prefix(count)),
            firstQueuedAt: batch.firstQueuedAt, attempts: batch.attempts)
    }

    /// Events passed over: never to be sent.
    var passedOver: Int { unwanted + tooLarge }
}
