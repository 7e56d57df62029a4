@testable import ClearanceServer
import Testing

@Suite("ClientEventRateLimiter")
struct ClientEventRateLimiterTests {
    @Test func allowsTenPerSecondThenRefuses() {
        var limiter = ClientEventRateLimiter(limit: 10)
        let start = ContinuousClock.now
        for index in 0..<10 {
            #expect(limiter.allow(at: start + .milliseconds(index)))
        }
        #expect(!limiter.allow(at: start + .milliseconds(10)))
        #expect(!limiter.allow(at: start + .milliseconds(999)))
    }

    @Test func theWindowSlides() {
        var limiter = ClientEventRateLimiter(limit: 2)
        let start = ContinuousClock.now
        #expect(limiter.allow(at: start))
        #expect(limiter.allow(at: start + .milliseconds(500)))
        #expect(!limiter.allow(at: start + .milliseconds(900)))
        #expect(limiter.allow(at: start + .milliseconds(1_000)))
        #expect(!limiter.allow(at: start + .milliseconds(1_400)))
        #expect(limiter.allow(at: start + .milliseconds(1_500)))
    }

    @Test func zeroAllowsNothing() {
        var limiter = ClientEventRateLimiter(limit: 0)
        #expect(!limiter.allow(at: .now))
    }
}
