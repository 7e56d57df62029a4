/// A token bucket: up to `capacity` at once, refilled at `perSecond`. The hub's rates are made
/// of it (a connection's subscribes, an app's HTTP API calls).
struct TokenBucket: Sendable {
    let capacity: Double
    let perSecond: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant?

    /// A full bucket; `capacity` and `perSecond` are at least 1.
    init(capacity: Int, perSecond: Int) {
        self.capacity = Double(max(1, capacity))
        self.perSecond = Double(max(1, perSecond))
        tokens = self.capacity
    }

    /// Takes `count` tokens at `now` when the bucket holds them all (and none otherwise).
    mutating func take(_ count: Int = 1, at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        guard tokens >= Double(count) else { return false }
        tokens -= Double(count)
        return true
    }

    /// Takes up to `count` tokens at `now`, never going below empty.
    mutating func drain(_ count: Int = 1, at now: ContinuousClock.Instant) {
        refill(at: now)
        tokens = max(0, tokens - Double(count))
    }

    /// Adds what the time since the last refill earned. An instant older than the last refill
    /// (callers read the clock before they take the lock that guards the bucket, so two of them
    /// can arrive out of order) adds nothing and does not move the refill time back: the time
    /// between them is never earned twice.
    private mutating func refill(at now: ContinuousClock.Instant) {
        guard let refilledAt else {
            refilledAt = now
            return
        }
        guard now > refilledAt else { return }
        let (seconds, attoseconds) = (now - refilledAt).components
        tokens = min(capacity, tokens + (Double(seconds) + Double(attoseconds) / 1e18) * perSecond)
        self.refilledAt = now
    }
}
