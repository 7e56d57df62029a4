import Clearance
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

@Suite("ManualHubClock")
struct ManualHubClockTests {
    @Test func sleepersWakeInTheOrderOfTheirDeadlinesOnlyWhenAnAdvanceReachesThem() async throws {
        let clock = ManualHubClock(date: Date(timeIntervalSince1970: 1_000))
        let start = clock.now
        let woken = Locked([Int]())
        let sleepers = (1...3).reversed().map { seconds in
            Task {
                try await clock.sleep(until: start + .seconds(seconds))
                woken.withLock { $0.append(seconds) }
            }
        }
        try await eventually("all asleep") { clock.sleepers == 3 }
        await clock.advance(by: .milliseconds(1_500))
        try await eventually("the first awake") { woken.withLock { $0 } == [1] }
        #expect(clock.sleepers == 2, "the later ones sleep on")
        await clock.advance(by: .seconds(2))
        for sleeper in sleepers { try await sleeper.value }
        #expect(woken.withLock { $0 } == [1, 2, 3])
        #expect(clock.now - start == .milliseconds(3_500))
        #expect(clock.date == Date(timeIntervalSince1970: 1_003.5))
    }

    // A batch window of 5 s compared as dates: with a start date that is not a whole second,
    // `start + 5 s - start` came out a rounding error short of 5 s in one run of three.
    @Test func datesAWholeNumberOfSecondsApartAreExactlyThatFarApart() async throws {
        for fraction in [0.1, 0.123456789, 0.5, 0.987654321] {
            let clock = ManualHubClock(date: Date(timeIntervalSince1970: 1_764_000_000 + fraction))
            let start = clock.date
            #expect(start == Date(timeIntervalSince1970: 1_764_000_000), "starts at the whole second")
            for seconds in [1, 2, 5, 60] {
                let before = clock.date
                await clock.advance(by: .seconds(seconds))
                #expect(clock.date.timeIntervalSince(before) == Double(seconds))
            }
            #expect(clock.date.timeIntervalSince(start) == 68)
        }
    }

    @Test func aSleepThatIsDueReturnsAtOnceAndACancelledOneThrows() async throws {
        let clock = ManualHubClock()
        try await clock.sleep(until: clock.now)
        let sleeping = Task { try await clock.sleep(for: .seconds(60)) }
        try await eventually("asleep") { clock.sleepers == 1 }
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleepers == 0)
    }
}

/// The Swift block of `ManualHubClock`'s doc comment, compiled.
enum ManualHubClockDocExamples {
    static func manualHubClockDocComment(configuration: HubConfiguration) async throws -> HubServer {
        // snippet: begin
        let clock = ManualHubClock()
        let hub = try await HubServer.start(configuration, clock: clock)
        // … a client stays silent …
        await clock.advance(by: .seconds(120))  // the hub pings it
        // snippet: end
        return hub
    }
}
