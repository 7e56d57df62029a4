import Clearance
import ClearanceTestSupport
import Testing

/// ``Latch``: opening lets every waiting task go and every later one pass; a cancelled waiter
/// goes at once; ``Latch/wait(atMost:)`` ends at the opening, long before its duration.
@Suite("Latch", .timeLimit(.minutes(1)))
struct LatchTests {
    @Test func openingLetsEveryWaiterGoAndLaterOnesPass() async throws {
        let latch = Latch()
        let waiters = (0..<3).map { _ in Task { await latch.wait() } }
        try await eventually("three waiting") { latch.waitingCount == 3 }
        #expect(!latch.isOpen)
        latch.open()
        for waiter in waiters { await waiter.value }
        #expect(latch.isOpen)
        #expect(latch.waitingCount == 0)
        await latch.wait()
        latch.open()
        #expect(latch.isOpen)
    }

    @Test func aCancelledWaiterGoesAndTheOthersStayHeld() async throws {
        let latch = Latch()
        let cancelled = Task { await latch.wait() }
        let held = Task { await latch.wait() }
        try await eventually("two waiting") { latch.waitingCount == 2 }
        cancelled.cancel()
        await cancelled.value
        #expect(latch.waitingCount == 1)
        latch.open()
        await held.value
    }

    @Test func aWaitWithADurationEndsWhenOpened() async throws {
        // snippet: begin
        let stopping = Latch()
        let worker = Task { await stopping.wait(atMost: .seconds(3_600)) }   // a retry's pause
        stopping.open()
        await worker.value                                                 // at once, not in an hour
        // snippet: end
        #expect(stopping.isOpen)
    }

    @Test func aWaitWithADurationEndsAfterItWhenNeverOpened() async {
        let latch = Latch()
        await latch.wait(atMost: .milliseconds(10))
        #expect(!latch.isOpen)
    }
}
