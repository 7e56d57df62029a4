/// How long to wait before the next token request after one failed without ending the session
/// (a network error, a 5xx): exponential, from ``initialDelay`` doubling up to ``maximumDelay``,
/// and never shorter than the server's `Retry-After`.
///
/// A value type on the monotonic clock. While it runs, a still-valid access token keeps being
/// used; an expired one fails fast with ``OAuth2Error/backingOff(retryAfter:cause:)``.
public struct RefreshBackoff: Sendable, Hashable {
    /// The wait after the first failure. Default 1 s.
    public var initialDelay: Duration
    /// The longest wait. Default 30 s.
    public var maximumDelay: Duration
    /// Consecutive failures so far.
    public private(set) var consecutiveFailures = 0
    /// The earliest monotonic time of the next attempt, while backing off.
    public private(set) var notBefore: Duration?

    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30)) {
        self.initialDelay = initialDelay
        self.maximumDelay = max(initialDelay, maximumDelay)
    }

    /// No waiting at all (tests, or apps that pace themselves).
    public static let none = RefreshBackoff(initialDelay: .zero, maximumDelay: .zero)

    /// Records a failure at `now`; returns the wait before the next attempt.
    @discardableResult
    public mutating func recordFailure(at now: Duration, serverRetryAfter: Duration? = nil) -> Duration {
        consecutiveFailures += 1
        var delay = initialDelay
        for _ in 1..<consecutiveFailures where delay < maximumDelay {
            delay = min(delay * 2, maximumDelay)
        }
        if let serverRetryAfter { delay = max(delay, serverRetryAfter) }
        notBefore = now + delay
        return delay
    }

    /// Records a success: the next failure starts from ``initialDelay`` again.
    public mutating func recordSuccess() {
        consecutiveFailures = 0
        notBefore = nil
    }

    /// How long until the next attempt is allowed, or nil when it is allowed now.
    public func remaining(now: Duration) -> Duration? {
        guard let notBefore, notBefore > now else { return nil }
        return notBefore - now
    }
}
