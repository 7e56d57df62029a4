@testable import ClearanceServer
import Foundation
import Testing

/// The single hub's webhook queue: per target in order, one batch in flight, bounded.
@Suite("In-memory webhook queue and back-off")
struct InMemoryWebhookQueueTests {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)
    private let first = WebhookTargetID(appID: "app", index: 0)
    private let second = WebhookTargetID(appID: "app", index: 1)

    private func events(_ target: WebhookTargetID, _ channels: [String], at date: Date) -> [QueuedWebhookEvent] {
        channels.map { QueuedWebhookEvent(target: target, event: .channelOccupied(channel: $0), queuedAt: date) }
    }

    @Test func aBatchWaitsForItsWindowThenGoesOutWhole() {
        let queue = InMemoryWebhookQueue(limit: 100)
        _ = queue.enqueue(events(first, ["a", "b"], at: start))
        #expect(queue.claim(limit: 100, window: .seconds(1), flushing: false, now: start.addingTimeInterval(0.5)).isEmpty)
        #expect(queue.claim(limit: 100, window: .seconds(1), flushing: true, now: start.addingTimeInterval(0.5)).map(\.events.count) == [2])
    }

    @Test func aLaterEventNeverOvertakesOneBeingRetried() throws {
        let queue = InMemoryWebhookQueue(limit: 100)
        _ = queue.enqueue(events(first, ["a"], at: start))
        let batch = try #require(queue.claim(limit: 100, window: .zero, flushing: false, now: start).first)
        _ = queue.enqueue(events(first, ["b"], at: start))
        #expect(queue.claim(limit: 100, window: .zero, flushing: false, now: start).isEmpty, "one batch of a target in flight at a time")
        queue.reschedule(batch, retryAt: start.addingTimeInterval(2))
        #expect(queue.claim(limit: 100, window: .zero, flushing: false, now: start.addingTimeInterval(1)).isEmpty, "waits for its retry")
        let retried = try #require(queue.claim(limit: 100, window: .zero, flushing: false, now: start.addingTimeInterval(2)).first)
        #expect(retried.events == [.channelOccupied(channel: "a"), .channelOccupied(channel: "b")])
        #expect(retried.attempts == 1)
        queue.complete(retried)
        #expect(queue.pendingCount() == 0)
    }

    @Test func targetsAreIndependent() {
        let queue = InMemoryWebhookQueue(limit: 100)
        _ = queue.enqueue(events(first, ["a"], at: start) + events(second, ["b"], at: start))
        let batches = queue.claim(limit: 100, window: .zero, flushing: false, now: start)
        #expect(batches.map(\.target) == [first, second])
        queue.reschedule(batches[0], retryAt: start.addingTimeInterval(60))
        queue.complete(batches[1])
        _ = queue.enqueue(events(second, ["c"], at: start))
        #expect(queue.claim(limit: 100, window: .zero, flushing: false, now: start).map(\.target) == [second])
    }

    @Test func pastItsBoundTheQueueDropsTheOldest() throws {
        let queue = InMemoryWebhookQueue(limit: 3)
        #expect(queue.enqueue(events(first, ["a", "b"], at: start)) == 0)
        #expect(queue.enqueue(events(second, ["c", "d", "e"], at: start)) == 2)
        #expect(queue.pendingCount() == 3)
        let batches = queue.claim(limit: 100, window: .zero, flushing: false, now: start)
        #expect(batches.flatMap(\.events).map(\.channel) == ["c", "d", "e"])
    }

    @Test func theBackOffDoublesWithJitterAndEndsWithTheRetryWindow() {
        let backoff = WebhookBackoff(firstDelay: 1, retryDuration: 300)
        #expect(backoff.delay(afterAttempts: 1, random: 0) == 1)
        #expect(backoff.delay(afterAttempts: 3, random: 0) == 4)
        #expect(backoff.delay(afterAttempts: 3, random: 1) == 2)
        #expect(backoff.delay(afterAttempts: 40, random: 0) == 60)
        #expect(backoff.retry(firstQueuedAt: start, attempts: 1, now: start.addingTimeInterval(10), random: 0) == start.addingTimeInterval(11))
        #expect(backoff.retry(firstQueuedAt: start, attempts: 9, now: start.addingTimeInterval(290), random: 0) == nil)
    }
}
