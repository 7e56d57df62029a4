/// The limit on one connection's subscribes and unsubscribes, as a token bucket: a burst of up
/// to `burst` changes (a reconnecting client subscribes to all its channels at once), refilled
/// at `perSecond`. Subscribes past it are refused; unsubscribes are always honoured but use up
/// what is left, so that a presence channel cannot be churned faster than the rate.
struct SubscriptionRateLimiter: Sendable {
    let burst: Double
    let perSecond: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant?

    /// `burst` and `perSecond` come from validated limits (both at least 1, at most 100,000).
    init(burst: Int, perSecond: Int) {
        self.burst = Double(max(1, burst))
        self.perSecond = Double(max(1, perSecond))
        tokens = self.burst
    }

    /// Whether a subscribe may go ahead at `now`; uses a token when it may.
    mutating func allowSubscribe(at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Counts an unsubscribe at `now` (it is never refused).
    mutating func recordUnsubscribe(at now: ContinuousClock.Instant) {
        refill(at: now)
        tokens = max(0, tokens - 1)
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        if let refilledAt, now > refilledAt {
            let (seconds, attoseconds) = (now - refilledAt).components
            tokens = min(burst, tokens + (Double(seconds) + Double(attoseconds) / 1e18) * perSecond)
        }
        refilledAt = now
    }
}
