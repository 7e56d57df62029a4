/// When to poll the token endpoint in the device flow (RFC 8628 §3.5), as a value.
///
/// - Starts at the server's interval (5 s when it gave none).
/// - `authorization_pending`: poll again after the current interval.
/// - `slow_down`: the interval grows by 5 s, for this poll and every later one.
/// - A connection failure doubles the interval (up to a minute).
/// - The codes expire `expiresIn` after they were issued: no poll is scheduled past that.
public struct DevicePollSchedule: Sendable, Hashable {
    /// The current interval between polls.
    public private(set) var interval: Duration
    /// When the device code expires, on the monotonic clock.
    public let deadline: Duration
    /// How many polls have been scheduled.
    public private(set) var polls = 0

    /// The increase RFC 8628 §3.5 prescribes for `slow_down`.
    public static let slowDownIncrement: Duration = .seconds(5)

    /// - Parameters:
    ///   - interval: The server's interval.
    ///   - issuedAt: When the device authorization arrived (monotonic).
    ///   - expiresIn: How long the codes are valid.
    public init(interval: Duration, issuedAt: Duration, expiresIn: Duration) {
        self.interval = interval
        self.deadline = issuedAt + expiresIn
    }

    /// The server said `slow_down`: every later poll waits 5 s longer.
    public mutating func slowDown() {
        interval += Self.slowDownIncrement
    }

    /// The server could not be reached: the interval doubles (RFC 8628 §3.5), up to a minute.
    public mutating func backOff() {
        interval = min(interval * 2, max(interval, .seconds(60)))
    }

    /// How long to wait before the next poll, or nil when the next poll would come after the codes expired.
    public mutating func nextDelay(now: Duration) -> Duration? {
        guard now + interval < deadline else { return nil }
        polls += 1
        return interval
    }
}
