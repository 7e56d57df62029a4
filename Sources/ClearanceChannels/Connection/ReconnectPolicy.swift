/// When to reconnect after a connection ended, following the Pusher close-code ranges:
///
/// - 4000–4099: do not reconnect; report the error (the app does not exist, is disabled, over
///   quota, the protocol is wrong, the connection is unauthorized, …).
/// - 4100–4199: reconnect after a back-off of at least ``minimumServerBackoff`` (1 s), exponential
///   with jitter.
/// - 4200–4299: a planned restart (or a missed pong): the server wants the client back soon. The
///   client retries every ``restartRetryInterval`` (about a second, with jitter; the first retry
///   anywhere within the first interval, so that clients closed together do not return together)
///   for ``restartRetryAttempts`` retries, whatever the retries end with (a server being restarted
///   refuses connections for a while), and only then backs off exponentially.
/// - anything else (4300–4399, a network failure, a timeout, a normal close): exponential
///   back-off with jitter from ``initialDelay``.
///
/// A connection counts as stable once it has lived ``stableConnectionDuration``: only then does
/// the count of attempts start again, so a server that accepts and drops connections at once is
/// not hammered. A value type with no clock of its own: the caller passes the attempt numbers
/// and a random number generator (`ConnectionMachine` counts them), which keeps it
/// deterministic under test.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first back-off delay (attempt 1) for causes that back off.
    public var initialDelay: Duration
    /// The longest delay.
    public var maximumDelay: Duration
    /// The growth per attempt.
    public var multiplier: Double
    /// Extra random delay, as a fraction of the computed delay (0.25 adds up to 25 %); retries
    /// after a planned restart vary by this fraction either way.
    public var jitter: Double
    /// The floor for close codes 4100–4199 (the protocol asks for at least one second).
    public var minimumServerBackoff: Duration
    /// The pace of retries after a planned restart (close codes 4200–4299).
    public var restartRetryInterval: Duration
    /// How many retries at ``restartRetryInterval`` a planned restart gets before the
    /// exponential back-off applies.
    public var restartRetryAttempts: Int
    /// How long a connection must have lived for the attempt counts to start again.
    public var stableConnectionDuration: Duration

    /// Creates a policy.
    public init(
        initialDelay: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Double = 0.25,
        minimumServerBackoff: Duration = .seconds(1),
        restartRetryInterval: Duration = .seconds(1),
        restartRetryAttempts: Int = 30,
        stableConnectionDuration: Duration = .seconds(3)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
        self.minimumServerBackoff = minimumServerBackoff
        self.restartRetryInterval = max(.zero, restartRetryInterval)
        self.restartRetryAttempts = max(0, restartRetryAttempts)
        self.stableConnectionDuration = max(.zero, stableConnectionDuration)
    }

    /// The longest delay or duration a policy may hold (a day); more is a configuration error
    /// (``firstInvalidMember()``), and delays are computed never longer than this.
    public static let longestDuration: Duration = .seconds(86_400)

    /// The first member whose value cannot work, with the reason; nil when all can. A value
    /// like 1e300 is reported here (``ChannelClient/connect()`` fails with
    /// ``ChannelClientError/invalidOptions(reason:)``), never a trap later.
    public func firstInvalidMember() -> String? {
        let durations: KeyValuePairs<String, Duration> = [
            "initialDelay": initialDelay, "maximumDelay": maximumDelay, "minimumServerBackoff": minimumServerBackoff,
            "restartRetryInterval": restartRetryInterval, "stableConnectionDuration": stableConnectionDuration,
        ]
        for (name, value) in durations where value < .zero || value > Self.longestDuration {
            return "reconnectPolicy.\(name) must be between 0 and \(Self.longestDuration), not \(value)"
        }
        guard multiplier.isFinite, (1...1_000).contains(multiplier) else { return "reconnectPolicy.multiplier must be between 1 and 1000, not \(multiplier)" }
        guard jitter.isFinite, (0...1).contains(jitter) else { return "reconnectPolicy.jitter must be between 0 and 1, not \(jitter)" }
        guard (0...10_000).contains(restartRetryAttempts) else { return "reconnectPolicy.restartRetryAttempts must be between 0 and 10000, not \(restartRetryAttempts)" }
        return nil
    }

    /// The default policy: 1 s, doubling, up to 30 s, 25 % jitter; after a planned restart,
    /// 30 retries about a second apart; stable after 3 s.
    public static let standard = ReconnectPolicy()

    /// What to do after the connection ended with `cause`.
    ///
    /// - Parameters:
    ///   - cause: Why it ended.
    ///   - attempt: 1 for the first back-off since the last stable connection, 2 for the next, …
    ///   - restartAttempt: While a planned restart lasts (it began with a close code 4200–4299):
    ///     1 for the first retry since it began, 2 for the next, …; `nil` otherwise. Beyond
    ///     ``restartRetryAttempts`` the back-off for `attempt` applies.
    ///   - generator: The source of jitter.
    public func decision(
        after cause: DisconnectCause,
        attempt: Int,
        restartAttempt: Int? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> ReconnectDecision {
        if case .closed(let code, _) = cause, (4000...4099).contains(code) {
            return .stop(cause.error)
        }
        if let restartAttempt, restartAttempt >= 1, restartAttempt <= restartRetryAttempts {
            return .retry(after: restartDelay(restartAttempt: restartAttempt, using: &generator))
        }
        let delay = backoff(attempt: max(1, attempt), using: &generator)
        if case .closed(let code, _) = cause, (4100...4199).contains(code) {
            return .retry(after: min(max(delay, minimumServerBackoff), Self.longestDuration))
        }
        return .retry(after: delay)
    }

    /// The same, with the system's random number generator.
    public func decision(after cause: DisconnectCause, attempt: Int, restartAttempt: Int? = nil) -> ReconnectDecision {
        var generator = SystemRandomNumberGenerator()
        return decision(after: cause, attempt: attempt, restartAttempt: restartAttempt, using: &generator)
    }

    /// The first retry after a planned restart: anywhere within one interval. Later ones: one
    /// interval, give or take `jitter` of it.
    func restartDelay(restartAttempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let interval = Self.seconds(restartRetryInterval)  // `duration(seconds:)` bounds the result
        guard interval > 0 else { return .zero }
        let seconds = restartAttempt <= 1
            ? Double.random(in: 0...interval, using: &generator)
            : interval * (jitter > 0 ? Double.random(in: (1 - jitter)...(1 + jitter), using: &generator) : 1)
        return Self.duration(seconds: seconds)
    }

    /// `initialDelay × multiplier^(attempt-1)`, capped at `maximumDelay`, plus up to `jitter` of it.
    func backoff(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = Self.seconds(initialDelay)
        let cap = Self.seconds(maximumDelay)
        let exponent = Double(min(max(0, attempt - 1), 64))
        let raw = min(cap, base * pow(multiplier, exponent))
        let extra = jitter > 0 && raw.isFinite ? Double.random(in: 0...(raw * jitter), using: &generator) : 0
        return Self.duration(seconds: min(cap, raw + extra))
    }

    /// `seconds` as a duration, within 0…``longestDuration`` whatever the arithmetic produced.
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64((min(seconds, Self.seconds(longestDuration)) * 1e9).rounded()))
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
