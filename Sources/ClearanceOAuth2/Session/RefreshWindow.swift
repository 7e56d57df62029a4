/// At most ``maximumAttempts`` token requests in any ``duration`` (Alamofire's refresh window):
/// the brake on a refresh loop, such as a server that refuses every fresh token with 401.
///
/// A value type on the monotonic clock: record each attempt, ask before the next.
public struct RefreshWindow: Sendable, Hashable {
    /// How many attempts the window allows. Default 5.
    public var maximumAttempts: Int
    /// The window's length. Default 30 s.
    public var duration: Duration
    /// The attempts still in the window, oldest first (monotonic times).
    public private(set) var attempts: [Duration] = []

    public init(maximumAttempts: Int = 5, duration: Duration = .seconds(30)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.duration = duration
    }

    /// How long until another attempt is allowed, or nil when one is allowed now.
    public func retryAfter(now: Duration) -> Duration? {
        let recent = attempts.filter { $0 > now - duration }
        guard recent.count >= maximumAttempts, let oldest = recent.first else { return nil }
        return oldest + duration - now
    }

    /// How many attempts fall in the window ending `now`.
    public func recentAttempts(now: Duration) -> Int {
        attempts.filter { $0 > now - duration }.count
    }

    /// Records an attempt made at `now` (and forgets the ones that left the window).
    public mutating func recordAttempt(at now: Duration) {
        attempts.removeAll { $0 <= now - duration }
        attempts.append(now)
    }

    /// Forgets every attempt (after a new sign-in).
    public mutating func reset() {
        attempts.removeAll()
    }
}
