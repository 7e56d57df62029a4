import Clearance
import Foundation

/// The system clock, moved forward on demand (to make a token stale or a snapshot old without
/// waiting). Shared by a development server and a provider in the same test.
final class TestClock: Sendable {
    private let offset = Locked<TimeInterval>(0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    var function: @Sendable () -> Date { { [self] in now() } }
}
