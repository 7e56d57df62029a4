/// The protocol's limit on client events, as a value: at most `limit` in any sliding `window`
/// (10 per second per connection). The client checks it before sending; the hub enforces it.
public struct ClientEventRateLimiter: Sendable, Hashable {
    /// Events allowed per window (0: none).
    public let limit: Int
    /// The sliding window.
    public let window: Duration
    /// The accepted events still inside the window, oldest first; never more than `limit`.
    private var accepted: [ContinuousClock.Instant] = []

    /// Creates a limiter; the protocol's is 10 per second.
    public init(limit: Int = 10, window: Duration = .seconds(1)) {
        self.limit = max(0, limit)
        self.window = window
        accepted.reserveCapacity(min(self.limit, 64))
    }

    /// Whether an event may be sent at `now`; records it when it may.
    public mutating func allow(at now: ContinuousClock.Instant) -> Bool {
        accepted.removeAll { now - $0 >= window }
        guard accepted.count < limit else { return false }
        accepted.append(now)
        return true
    }
}
