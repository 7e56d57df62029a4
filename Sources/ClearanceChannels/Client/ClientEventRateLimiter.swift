/// At most `limit` client events in any `window` (the protocol's 10 per second per connection),
/// as a value: the times of the last `limit` sends.
public struct ClientEventRateLimiter: Sendable, Hashable {
    /// Events allowed per window.
    public let limit: Int
    /// The sliding window.
    public let window: Duration
    private var sent: [ContinuousClock.Instant] = []

    /// Creates a limiter; the protocol's is 10 per second.
    public init(limit: Int = 10, window: Duration = .seconds(1)) {
        self.limit = max(1, limit)
        self.window = window
    }

    /// Whether an event may be sent at `now`; records it when it may.
    public mutating func allow(at now: ContinuousClock.Instant) -> Bool {
        sent.removeAll { now - $0 >= window }
        guard sent.count < limit else { return false }
        sent.append(now)
        return true
    }
}
