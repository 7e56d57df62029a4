/// How the client retries an authorization that failed transiently (a timeout, a transport
/// error, a 5xx): a few attempts with exponential back-off, then the channel fails with the last
/// error. Never pending forever (pusher-websocket-swift #401).
public struct AuthorizationRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int
    /// The delay before the second attempt.
    public var initialDelay: Duration
    /// The growth per attempt.
    public var multiplier: Int

    /// Creates a policy. Default: 3 attempts, 0.5 s then 1 s.
    public init(maximumAttempts: Int = 3, initialDelay: Duration = .milliseconds(500), multiplier: Int = 2) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.multiplier = max(1, multiplier)
    }

    /// The delay after failed attempt `attempt` (1-based).
    public func delay(after attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) { delay = delay * multiplier }
        return delay
    }
}
