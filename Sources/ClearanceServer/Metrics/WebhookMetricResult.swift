/// The `result` label of `clearance_webhooks_total`: what became of a webhook event.
enum WebhookMetricResult: String, Sendable, Hashable {
    /// In a POST the receiver accepted (2xx).
    case delivered
    /// In a POST that failed (no answer, or not 2xx): tried again until the retry window is
    /// over, then dropped (counted again as such).
    case failed
    /// Given up: still failing after the retry window, the queue full, or its target gone.
    case dropped
}
