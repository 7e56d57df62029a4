import Clearance
import Foundation

/// A wall clock the test moves by hand.
final class TestClock: Sendable {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let current = Locked(TestClock.start)

    var now: Date { current.withLock { $0 } }

    /// The clock as the sources take it.
    var reading: @Sendable () -> Date { { [current] in current.withLock { $0 } } }

    /// Moves to `start + seconds`.
    func set(_ seconds: TimeInterval) {
        current.withLock { $0 = TestClock.start.addingTimeInterval(seconds) }
    }
}
