@testable import ClearanceServer
import Testing

/// ``TokenBucket`` on instants given by the test: what it holds, what a second earns, and
/// callers whose clock readings arrive out of order.
struct TokenBucketTests {
    let start = ContinuousClock.now

    @Test func aFullBucketGivesItsCapacityThenRefillsAtItsRate() {
        var bucket = TokenBucket(capacity: 10, perSecond: 10)
        let taken = [
            bucket.take(10, at: start),
            bucket.take(1, at: start),
            bucket.take(6, at: start + .milliseconds(500)),
            bucket.take(5, at: start + .milliseconds(500)),
            // Never more than its capacity, however long it waited.
            bucket.take(11, at: start + .seconds(60)),
            bucket.take(10, at: start + .seconds(60)),
        ]
        #expect(taken == [true, false, false, true, false, true])
    }

    /// Callers read the clock before they take the bucket's lock: a reading older than the last
    /// refill earns nothing, and the time it reaches back over is not earned again by the next.
    @Test func anOlderInstantNeitherEarnsNorRewindsTheRefill() {
        var bucket = TokenBucket(capacity: 10, perSecond: 10)
        let taken = [
            bucket.take(10, at: start + .seconds(1)),
            bucket.take(1, at: start + .milliseconds(500)),
            // Half a second after the last refill earns five, not the ten that a refill time
            // moved back to the older reading would give.
            bucket.take(6, at: start + .milliseconds(1_500)),
            bucket.take(5, at: start + .milliseconds(1_500)),
        ]
        #expect(taken == [true, false, false, true])
    }
}
