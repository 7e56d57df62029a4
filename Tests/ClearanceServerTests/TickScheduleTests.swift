@testable import ClearanceServer
import Testing

@Suite("TickSchedule")
struct TickScheduleTests {
    let start = ContinuousClock.now

    @Test func onTimeTheInstantsAreAnIntervalApart() {
        var schedule = TickSchedule(start: start)
        var now = start
        for expected in 1...4 {
            let next = schedule.next(every: .seconds(5), now: now)
            #expect(next == start + .seconds(5 * expected))
            now = next
        }
    }

    // A loop that woke 3.5 s late (its tick at 5 s ran at 8.5 s) sleeps until 10 s, on the grid,
    // not until 13.5 s: a timer due at 10 s is seen at 10 s.
    @Test func aLateWakingKeepsToTheGrid() {
        var schedule = TickSchedule(start: start)
        #expect(schedule.next(every: .seconds(5), now: start) == start + .seconds(5))
        #expect(schedule.next(every: .seconds(5), now: start + .milliseconds(8_500)) == start + .seconds(10))
    }

    // Far behind (the clock moved 23 s at once): the missed instants are skipped, the next is the
    // last one not after now (due at once), then the grid goes on.
    @Test func missedInstantsAreSkippedNotCaughtUpOneByOne() {
        var schedule = TickSchedule(start: start)
        #expect(schedule.next(every: .seconds(5), now: start + .seconds(23)) == start + .seconds(20))
        #expect(schedule.next(every: .seconds(5), now: start + .seconds(23)) == start + .seconds(25))
    }
}
