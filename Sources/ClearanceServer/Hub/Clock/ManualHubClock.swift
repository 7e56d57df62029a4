import Clearance
import Foundation

/// A clock that moves only when told (``advance(by:)``), for tests of the hub's time-based
/// behaviour: what waits on it wakes, in the order of its deadlines, when an advance reaches
/// them, and never otherwise.
///
/// ```swift
/// let clock = ManualHubClock()
/// let hub = try await HubServer.start(configuration, clock: clock)
/// // … a client stays silent …
/// await clock.advance(by: .seconds(120))  // the hub pings it
/// ```
public final class ManualHubClock: HubClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// How many sleeps have begun (a sleeper added, or a deadline found passed).
        var sleepsBegun: UInt64 = 0
    }

    private let start: ContinuousClock.Instant
    private let startDate: Date
    private let state: Locked<State>

    /// A clock that starts at the machine's now (and `date`, by default at the machine's date),
    /// its `date` at a whole second: then dates a whole number of seconds apart are exactly
    /// that far apart (`Date` is a `Double`), and a batch window of 5 s is over after an
    /// advance of 5 s, not a rounding error later.
    public init(date: Date = Date()) {
        let start = ContinuousClock.now
        self.start = start
        startDate = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down))
        state = Locked(State(now: start))
    }

    public var now: ContinuousClock.Instant { state.withLock { $0.now } }

    public var date: Date { startDate.addingTimeInterval(Self.seconds(now - start)) }

    /// How many tasks wait on the clock now (a test waits for the hub's timers to be asleep
    /// before it advances).
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool in
                    state.sleepsBegun += 1
                    guard deadline > state.now else { return true }
                    if Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the clock forward by `duration`, waking, in the order of their deadlines, what
    /// waits until then; between wakings it lets the woken task run until it sleeps again (a
    /// timer that sleeps again within the advance wakes again within it), or for a while when it
    /// does not. A task that has not slept again by then still sees the clock's time when it
    /// reads it, and its next sleep ends at once if that deadline has passed.
    public func advance(by duration: Duration) async {
        let target = state.withLock { $0.now } + duration
        while true {
            let woken = state.withLock { state -> (Sleeper, UInt64)? in
                guard let index = state.sleepers.indices.filter({ state.sleepers[$0].deadline <= target })
                    .min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline })
                else {
                    state.now = target
                    return nil
                }
                let sleeper = state.sleepers.remove(at: index)
                state.now = max(state.now, sleeper.deadline)
                return (sleeper, state.sleepsBegun)
            }
            guard let (sleeper, sleepsSoFar) = woken else { break }
            sleeper.continuation.resume()
            // Yield until a task sleeps again (a timer loop's next round), at most 100 times: a
            // fixed handful of yields was too few on a loaded machine, and too many for a
            // loop that wakes four times a second.
            for _ in 0..<100 {
                await Task.yield()
                if state.withLock({ $0.sleepsBegun > sleepsSoFar }) { break }
            }
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
