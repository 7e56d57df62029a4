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

    /// The delay after failed attempt `attempt` (1-based), never longer than
    /// ``ReconnectPolicy/longestDuration``.
    public func delay(after attempt: Int) -> Duration {
        let longest = ReconnectPolicy.longestDuration
        var delay = min(max(.zero, initialDelay), longest)
        for _ in 1..<max(1, attempt) where delay < longest {
            delay = delay > longest / multiplier ? longest : delay * multiplier
        }
        return delay
    }

    /// The first member whose value cannot work, with the reason; nil when all can.
    public func firstInvalidMember() -> String? {
        guard (1...100).contains(maximumAttempts) else { return "authorizationRetry.maximumAttempts must be between 1 and 100, not \(maximumAttempts)" }
        guard initialDelay >= .zero, initialDelay <= ReconnectPolicy.longestDuration else {
            return "authorizationRetry.initialDelay must be between 0 and \(ReconnectPolicy.longestDuration), not \(initialDelay)"
        }
        guard (1...100).contains(multiplier) else { return "authorizationRetry.multiplier must be between 1 and 100, not \(multiplier)" }
        return nil
    }
}
