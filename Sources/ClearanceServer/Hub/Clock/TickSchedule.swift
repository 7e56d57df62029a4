/// A run loop's schedule on the hub's clock: instants an interval apart from where it started,
/// so that a loop that wakes late (a busy machine, a test that moved its clock far at once)
/// keeps to the same grid instead of drifting by each delay, and skips the instants it missed
/// instead of catching up one by one. A timer of the hub that is due on the grid (a ping 120 s
/// after the last frame) is then seen at that very tick, not one interval later.
struct TickSchedule: Sendable {
    /// The last instant of the schedule handed out (where it started, at first).
    private(set) var last: ContinuousClock.Instant

    init(start: ContinuousClock.Instant) {
        last = start
    }

    /// The next instant, `interval` after the last one, or, when `now` is already past it, the
    /// last instant of the grid that is not after `now` (a tick due now happens at once).
    mutating func next(every interval: Duration, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var next = last + interval
        if interval > .zero, now - next >= interval {
            next += interval * Int((now - next) / interval)
        }
        last = next
        return next
    }
}
