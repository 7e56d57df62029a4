import ClearanceSigning
import Testing

@Suite("ClientEventRateLimiter")
struct ClientEventRateLimiterTests {
    /// Feeds events at the given millisecond offsets and returns which were allowed.
    private func decisions(limit: Int, at offsets: [Int]) -> [Bool] {
        var limiter = ClientEventRateLimiter(limit: limit)
        let start = ContinuousClock.now
        return offsets.map { limiter.allow(at: start + .milliseconds($0)) }
    }

    @Test func allowsTenPerSecondThenRefuses() {
        let allowed = decisions(limit: 10, at: Array(0..<10) + [10, 999])
        #expect(allowed == Array(repeating: true, count: 10) + [false, false])
    }

    @Test func theWindowSlides() {
        #expect(decisions(limit: 2, at: [0, 500, 900, 1_000, 1_400, 1_500]) == [true, true, false, true, false, true])
    }

    @Test func zeroAllowsNothing() {
        #expect(decisions(limit: 0, at: [0]) == [false])
    }

    @Test func theProtocolsDefaultIsTenPerSecondSliding() {
        var limiter = ClientEventRateLimiter()
        let start = ContinuousClock.now
        // The window slides: at 1 000 ms only the send at 0 ms has left it.
        let allowed = (Array(0..<10) + [500, 1_000, 1_000, 1_001]).map { limiter.allow(at: start + .milliseconds($0)) }
        #expect(allowed == Array(repeating: true, count: 10) + [false, true, false, true])
    }
}
