import Foundation

/// The hub's one clock: every timer of the hub, its channel state and its webhooks reads and
/// sleeps on it (pings and pong deadlines, authorization deadlines, subscription-count
/// coalescing, cache expiry, rate buckets, termination grace, webhook batching and back-off,
/// the shutdown spread). ``SystemHubClock`` is the real one; ``ManualHubClock`` lets a test move
/// time forward by hand, so that a minute of hub time takes no wall time.
///
/// Instants are `ContinuousClock.Instant`s, so that the hub's plain values (a connection's
/// timers, a rate bucket) take them as they are; ``date`` is the wall time that goes on the wire
/// and across nodes (a cache entry's expiry, a webhook's `time_ms`).
public protocol HubClock: Sendable {
    /// Now, for the hub's timers.
    var now: ContinuousClock.Instant { get }
    /// Now, as wall time.
    var date: Date { get }
    /// Returns once the clock has reached `deadline`; throws `CancellationError` when cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

extension HubClock {
    /// Returns once `duration` has passed on this clock.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }
}

/// The machine's clocks: `ContinuousClock` and `Date()`.
public struct SystemHubClock: HubClock {
    /// The machine's clocks.
    public init() {}

    public var now: ContinuousClock.Instant { .now }

    public var date: Date { Date() }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
