/// At most `limit` client events in any sliding window of `window` (10 per second by default).
struct ClientEventRateLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

    let limit: Int
    let window: Duration
    /// The accepted events still inside the window, oldest first; never more than `limit`.
    private var accepted: [Instant] = []

    init(limit: Int, window: Duration = .seconds(1)) {
        self.limit = max(0, limit)
        self.window = window
        accepted.reserveCapacity(self.limit)
    }

    /// Whether an event at `now` is allowed; records it when it is.
    mutating func allow(at now: Instant) -> Bool {
        accepted.removeAll { now - $0 >= window }
        guard accepted.count < limit else { return false }
        accepted.append(now)
        return true
    }
}
