/// The hub's limits and timers for webhooks: batching, retries and the queue:
/// ``HubLimits/webhooks`` in code, the `"webhooks"` object of `"limits"` in a configuration file.
/// Every member has a default and an allowed range, listed on each (``HubConfiguration/validate()``
/// refuses a value outside it).
public struct HubWebhookLimits: Sendable, Hashable {
    /// Seconds a webhook target's events gather before they go out in one POST. Default 0.5;
    /// 0 (each as soon as possible) to 60.
    public var webhookBatchWindow: Double = 0.5
    /// Seconds one webhook POST may take (connecting included) before it counts as failed.
    /// Default 4 (Pusher's); more than 0 to 60.
    public var webhookAttemptTimeout: Double = 4
    /// Seconds a failed webhook is retried, with exponential back-off (with jitter), counted from
    /// when it was queued; then it is dropped, counted (``HubCounter/webhooksDropped``) and
    /// logged. Default 300 (Pusher's 5 minutes); 0 (one attempt) to 86,400.
    public var webhookRetryDuration: Double = 300
    /// Seconds before the first retry of a failed webhook; each next one waits twice as long (at
    /// most 60 s), less a random part of up to a half. Default 1; more than 0 to 60.
    public var webhookFirstRetryDelay: Double = 1
    /// Seconds a stopping hub waits for its pending webhooks to be delivered. Default 5; 0 to 300.
    public var webhookShutdownWait: Double = 5
    /// Most webhook events waiting for delivery (a receiver that is down): past it the oldest is
    /// dropped, counted (``HubCounter/webhooksDropped``) and logged, so that a dead receiver
    /// cannot grow the hub's memory. Default 100,000; 1 to 10,000,000.
    public var maxQueuedWebhooks: Int = 100_000
    /// Bytes of webhook events waiting for delivery, each counted as its JSON text plus 128
    /// bytes of bookkeeping: past it the oldest go as with ``maxQueuedWebhooks``, so that a
    /// receiver that is down while clients send large events holds at most this much of the
    /// hub's memory. Default 67,108,864 (64 MiB); 1,048,576 to 17,179,869,184 (16 GiB).
    public var maxQueuedWebhookBytes: Int = 67_108_864
    /// Largest webhook POST body, in bytes: a batch is cut to stay under it (the receiver's own
    /// limit, 1 MiB for nginx and for ``WebhookReceiver``, must not refuse a batch the hub could
    /// have sent in two). An event that cannot fit alone is dropped, counted and logged, never
    /// retried; a receiver that answers 413 gets smaller batches, down to one event, and an event
    /// it refuses alone is dropped so that the events behind it go on. Default 524,288 (512 KiB);
    /// 4,096 to 16,777,216 (16 MiB).
    public var maxWebhookBatchBytes: Int = 524_288

    /// The defaults listed on each member.
    public init() {}
}
