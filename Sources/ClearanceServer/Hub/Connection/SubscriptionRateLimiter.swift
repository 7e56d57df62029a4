/// The limit on one connection's subscribes and unsubscribes, as a ``TokenBucket``: a burst of
/// up to `burst` changes (a reconnecting client subscribes to all its channels at once),
/// refilled at `perSecond`. Subscribes past it are refused; unsubscribes are always honoured but
/// use up what is left, so that a presence channel cannot be churned faster than the rate.
struct SubscriptionRateLimiter: Sendable {
    private var bucket: TokenBucket

    /// `burst` and `perSecond` come from validated limits (both at least 1, at most 100,000).
    init(burst: Int, perSecond: Int) {
        bucket = TokenBucket(capacity: burst, perSecond: perSecond)
    }

    /// Whether a subscribe may go ahead at `now`; uses a token when it may.
    mutating func allowSubscribe(at now: ContinuousClock.Instant) -> Bool {
        bucket.take(at: now)
    }

    /// Counts an unsubscribe at `now` (it is never refused).
    mutating func recordUnsubscribe(at now: ContinuousClock.Instant) {
        bucket.drain(at: now)
    }
}
