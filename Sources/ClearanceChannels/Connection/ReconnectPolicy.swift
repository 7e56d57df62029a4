/// When to reconnect after a connection ended, following the Pusher close-code ranges:
///
/// - 4000–4099: do not reconnect; report the error (the app does not exist, is disabled, over
///   quota, the protocol is wrong, the connection is unauthorized, …).
/// - 4100–4199: reconnect after a back-off of at least ``minimumServerBackoff`` (1 s), exponential
///   with jitter.
/// - 4200–4299: reconnect at once (the server is restarting, a pong was missed).
/// - anything else (4300–4399, a network failure, a timeout, a normal close): exponential
///   back-off with jitter from ``initialDelay``.
///
/// Immediate reconnects are only immediate ``immediateAttempts`` times in a row; after that the
/// exponential back-off applies, so a server that keeps closing with 4200 is not hammered.
/// A value type with no clock of its own: the caller passes the attempt number and a random
/// number generator, which keeps it deterministic under test.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first back-off delay (attempt 1) for causes that back off.
    public var initialDelay: Duration
    /// The longest delay.
    public var maximumDelay: Duration
    /// The growth per attempt.
    public var multiplier: Double
    /// Extra random delay, as a fraction of the computed delay (0.25 adds up to 25 %).
    public var jitter: Double
    /// The floor for close codes 4100–4199 (the protocol asks for at least one second).
    public var minimumServerBackoff: Duration
    /// How many consecutive immediate reconnects (4200–4299) before backing off.
    public var immediateAttempts: Int

    /// Creates a policy.
    public init(
        initialDelay: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Double = 0.25,
        minimumServerBackoff: Duration = .seconds(1),
        immediateAttempts: Int = 3
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
        self.jitter = max(0, jitter)
        self.minimumServerBackoff = minimumServerBackoff
        self.immediateAttempts = max(0, immediateAttempts)
    }

    /// The default policy: 1 s, doubling, up to 30 s, 25 % jitter.
    public static let standard = ReconnectPolicy()

    /// What to do after the connection ended with `cause`.
    ///
    /// - Parameters:
    ///   - cause: Why it ended.
    ///   - attempt: 1 for the first reconnect since the last established connection, 2 for the next, …
    ///   - generator: The source of jitter.
    public func decision(
        after cause: DisconnectCause,
        attempt: Int,
        using generator: inout some RandomNumberGenerator
    ) -> ReconnectDecision {
        let attempt = max(1, attempt)
        if case .closed(let code, _) = cause {
            switch code {
            case 4000...4099:
                return .stop(cause.error)
            case 4100...4199:
                let delay = backoff(attempt: attempt, using: &generator)
                return .retry(after: max(delay, minimumServerBackoff))
            case 4200...4299 where attempt <= immediateAttempts:
                return .retry(after: .zero)
            case 4200...4299:
                return .retry(after: backoff(attempt: attempt - immediateAttempts, using: &generator))
            default:
                break
            }
        }
        return .retry(after: backoff(attempt: attempt, using: &generator))
    }

    /// The same, with the system's random number generator.
    public func decision(after cause: DisconnectCause, attempt: Int) -> ReconnectDecision {
        var generator = SystemRandomNumberGenerator()
        return decision(after: cause, attempt: attempt, using: &generator)
    }

    /// `initialDelay × multiplier^(attempt-1)`, capped at `maximumDelay`, plus up to `jitter` of it.
    func backoff(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = Self.seconds(initialDelay)
        let cap = Self.seconds(maximumDelay)
        let exponent = Double(min(max(0, attempt - 1), 64))
        let raw = min(cap, base * pow(multiplier, exponent))
        let extra = jitter > 0 ? Double.random(in: 0...(raw * jitter), using: &generator) : 0
        return .nanoseconds(Int64((min(cap, raw + extra) * 1e9).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && result < 1e12 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
