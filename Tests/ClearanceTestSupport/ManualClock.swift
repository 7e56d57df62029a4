import Clearance
import ClearanceOAuth2
import Foundation

/// A clock the test moves by hand. `sleep` records the duration, moves the clock by it and
/// returns at once, so polling and backoff run instantly.
package final class ManualClock: OAuth2Clock {
    private struct State {
        var wall = Date(timeIntervalSince1970: 1_750_000_000)
        var uptime: Duration = .seconds(10_000)
        var sleeps: [Duration] = []
    }
    private let state = Locked(State())

    package init() {}

    package var now: Date { state.withLock { $0.wall } }
    package var uptime: Duration { state.withLock { $0.uptime } }
    /// Every sleep asked for, in order.
    package var sleeps: [Duration] { state.withLock { $0.sleeps } }

    package func advance(by duration: Duration) {
        state.withLock { state in
            state.uptime += duration
            let (seconds, attoseconds) = duration.components
            state.wall.addTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        }
    }

    /// Moves the wall clock only (a user changing the device time).
    package func jumpWallClock(by seconds: TimeInterval) {
        state.withLock { $0.wall.addTimeInterval(seconds) }
    }

    package func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { $0.sleeps.append(duration) }
        advance(by: duration)
        await Task.yield()
    }
}
