import Synchronization
import ClearanceTesting
import ClearanceTestSupport
import Testing
@testable import Clearance

@Suite("SingleFlight")
struct SingleFlightTests {
    @Test func oneOperationForManyCallers() async throws {
        let flight = SingleFlight<Int>()
        let runs = Counter()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<500 {
                group.addTask {
                    try await flight.run {
                        runs.increment()
                        // Holds the operation until every caller waits for it.
                        try await eventually("all 500 callers wait") { flight.waiterCount == 500 }
                        return 7
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values.count == 500 && Set(values) == [7])
        #expect(runs.value == 1)
        #expect(flight.startedCount == 1)
        // Once it is done, the next call starts a new operation.
        #expect(try await flight.run { 8 } == 8)
        #expect(flight.startedCount == 2)
    }

    @Test func aCancelledWaiterLeavesAtOnceAndOthersStillGetTheResult() async throws {
        let flight = SingleFlight<String>()
        let release = AsyncStream<Void>.makeStream()
        let started = AsyncStream<Void>.makeStream()
        let first = Task {
            try await flight.run {
                started.continuation.yield()
                for await _ in release.stream { break }
                return "done"
            }
        }
        for await _ in started.stream { break }
        let second = Task { try await flight.run { "not started" } }
        try await eventually("the second caller joined the operation") { flight.waiterCount == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        release.continuation.yield()
        #expect(try await second.value == "done")
    }

    @Test func whenEveryWaiterLeavesTheOperationIsCancelled() async throws {
        let flight = SingleFlight<Int>()
        let sawCancellation = Counter()
        let started = AsyncStream<Void>.makeStream()
        let task = Task {
            try await flight.run {
                started.continuation.yield()
                do {
                    // sleep: the operation never ends by itself; only its cancellation ends this sleep
                    try await Task.sleep(for: .seconds(10))
                } catch {
                    sawCancellation.increment()
                    throw error
                }
                return 1
            }
        }
        for await _ in started.stream { break }
        task.cancel()
        _ = await task.result
        try await eventually("the operation saw its cancellation") { sawCancellation.value > 0 }
        #expect(sawCancellation.value == 1)
        #expect(!flight.isRunning)
    }

    @Test func errorsReachEveryWaiter() async {
        let flight = SingleFlight<Int>()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await flight.run {
                            // Fails only once every caller waits for it.
                            try await eventually("all 20 callers wait") { flight.waiterCount == 20 }
                            throw Boom()
                        }
                        return false
                    } catch { return error is Boom }
                }
            }
            for await sawBoom in group { #expect(sawBoom) }
        }
        #expect(flight.startedCount == 1)
    }

    /// A cancellation that races the operation's completion must leave nothing behind: a stale
    /// entry would keep the flight from ever cancelling an operation every caller left.
    @Test func aCancellationRacingCompletionLeavesNoStaleWaiter() async throws {
        let flight = SingleFlight<Int>()
        for iteration in 0..<2_000 {
            let caller = Task { try await flight.run { iteration } }
            if iteration % 2 == 0 { await Task.yield() }
            caller.cancel()
            _ = try? await caller.value
        }
        #expect(flight.waiterCount == 0)
        // The last operation, left by its caller, may still be finishing: a caller now would join
        // it (and get its value) instead of starting the operation below, whose start is awaited.
        try await eventually("the last operation finished") { !flight.isRunning }
        // Still a working flight: every caller leaving cancels the operation.
        let started = AsyncStream<Void>.makeStream()
        let caller = Task {
            try await flight.run {
                started.continuation.yield()
                // sleep: the operation never ends by itself; only its cancellation ends this sleep
                try await Task.sleep(for: .seconds(30))
                return -1
            }
        }
        for await _ in started.stream { break }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        try await eventually("the orphaned operation is cancelled") { !flight.isRunning }
    }
}
