@testable import ClearanceServer
import Foundation
import Testing

/// The single hub's webhook queue: per target in order, one batch in flight, bounded.
@Suite("In-memory webhook queue and back-off")
struct InMemoryWebhookQueueTests {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)
    private let first = WebhookTargetID(appID: "app", fingerprint: "1")
    private let second = WebhookTargetID(appID: "app", fingerprint: "2")
    private let other = WebhookTargetID(appID: "other", fingerprint: "1")

    /// Bounds of `events` events in all and per app, bytes unbounded.
    private func bounds(_ events: Int, perApp: Int? = nil) -> WebhookQueueBounds {
        WebhookQueueBounds(maxEvents: events, maxBytes: .max, maxEventsPerApp: perApp ?? events, maxBytesPerApp: .max)
    }

    private func events(_ target: WebhookTargetID, _ channels: [String], at date: Date) -> [QueuedWebhookEvent] {
        channels.map { QueuedWebhookEvent(target: target, event: .channelOccupied(channel: $0), queuedAt: date) }
    }

    @Test func aBatchWaitsForItsWindowThenGoesOutWhole() {
        let queue = InMemoryWebhookQueue()
        _ = queue.enqueue(events(first, ["a", "b"], at: start), within: bounds(100))
        #expect(queue.claim(limit: 100, window: .seconds(1), flushing: false, now: start.addingTimeInterval(0.5)).isEmpty)
        #expect(queue.claim(limit: 100, window: .seconds(1), flushing: true, now: start.addingTimeInterval(0.5)).map(\.events.count) == [2])
    }

    @Test func aLaterEventNeverOvertakesOneBeingRetried() throws {
        let queue = InMemoryWebhookQueue()
        _ = queue.enqueue(events(first, ["a"], at: start), within: bounds(100))
        let batch = try #require(queue.claim(limit: 100, window: .zero, flushing: false, now: start).first)
        _ = queue.enqueue(events(first, ["b"], at: start), within: bounds(100))
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
        let queue = InMemoryWebhookQueue()
        _ = queue.enqueue(events(first, ["a"], at: start) + events(second, ["b"], at: start), within: bounds(100))
        let batches = queue.claim(limit: 100, window: .zero, flushing: false, now: start)
        #expect(batches.map(\.target) == [first, second])
        queue.reschedule(batches[0], retryAt: start.addingTimeInterval(60))
        queue.complete(batches[1])
        _ = queue.enqueue(events(second, ["c"], at: start), within: bounds(100))
        #expect(queue.claim(limit: 100, window: .zero, flushing: false, now: start).map(\.target) == [second])
    }

    @Test func pastItsBoundTheQueueDropsTheOldest() throws {
        let queue = InMemoryWebhookQueue()
        #expect(queue.enqueue(events(first, ["a", "b"], at: start), within: bounds(3)).total == 0)
        #expect(queue.enqueue(events(second, ["c", "d", "e"], at: start), within: bounds(3)) == WebhookDrops(byApp: ["app": 2]))
        #expect(queue.pendingCount() == 3)
        let batches = queue.claim(limit: 100, window: .zero, flushing: false, now: start)
        #expect(batches.flatMap(\.events).map(\.channel) == ["c", "d", "e"])
    }

    /// A long flood through a small bound, drops, partial batches and retries interleaved: the
    /// queue keeps the newest events, in order, each once, however often its storage wraps round.
    @Test func aLongFloodThroughASmallBoundKeepsTheNewestInOrder() throws {
        let queue = InMemoryWebhookQueue()
        var delivered: [Int] = []
        var dropped = 0
        var next = 0
        for round in 0..<200 {
            let count = round % 5 + 1
            let channels = (next..<next + count).map { "\($0)" }
            next += count
            dropped += queue.enqueue(events(first, channels, at: start), within: bounds(7)).total
            #expect(queue.pendingCount() <= 7)
            guard round % 3 == 0 else { continue }
            let batch = try #require(queue.claim(limit: 4, window: .zero, flushing: true, now: start).first)
            if round % 2 == 0 {
                queue.reschedule(batch, retryAt: start)
            } else {
                // Events the bound dropped while the batch was out are not delivered twice.
                _ = queue.enqueue(events(first, ["\(next)"], at: start), within: bounds(7))
                next += 1
                queue.complete(batch)
                delivered += batch.events.map { Int($0.channel)! }
            }
        }
        let rest = queue.claim(limit: 100, window: .zero, flushing: true, now: start).flatMap(\.events).map { Int($0.channel)! }
        #expect(delivered == delivered.sorted() && Set(delivered).count == delivered.count)
        #expect(rest == rest.sorted() && rest.last == next - 1 && rest.count == 7)
        #expect(delivered.last.map { $0 < rest.first! } ?? true)
        #expect(dropped > 0)
    }

    @Test func oneAppPastItsPartDropsOnlyItsOwnEvents() {
        let queue = InMemoryWebhookQueue()
        let bounds = bounds(10, perApp: 4)
        #expect(queue.enqueue(events(other, ["b1", "b2"], at: start), within: bounds).total == 0)
        // The flooding app loses its own oldest; the other app's events stay.
        let drops = queue.enqueue(events(first, (1...30).map { "a\($0)" }, at: start), within: bounds)
        #expect(drops == WebhookDrops(byApp: ["app": 26]))
        let channels = queue.claim(limit: 100, window: .zero, flushing: true, now: start).flatMap(\.events).map(\.channel)
        #expect(channels.sorted() == ["a27", "a28", "a29", "a30", "b1", "b2"])
    }

    @Test func pastTheHubsBytesTheAppHoldingTheMostMakesRoom() {
        let queue = InMemoryWebhookQueue()
        let bounds = WebhookQueueBounds(maxEvents: 1_000, maxBytes: 1_000, maxEventsPerApp: 1_000, maxBytesPerApp: 700)
        let small = QueuedWebhookEvent(target: other, event: .channelOccupied(channel: "b"), queuedAt: start, bytes: 300)
        #expect(queue.enqueue([small], within: bounds).total == 0)
        let large = (1...3).map { QueuedWebhookEvent(target: first, event: .channelOccupied(channel: "a\($0)"), queuedAt: start, bytes: 300) }
        // 900 bytes of app: past its 700, its oldest goes; 600 + 300 within the hub's 1,000.
        #expect(queue.enqueue(large, within: bounds) == WebhookDrops(byApp: ["app": 1]))
        #expect(queue.bytes == 900)
        let more = QueuedWebhookEvent(target: other, event: .channelOccupied(channel: "b2"), queuedAt: start, bytes: 200)
        // 1,100 in all: the app holding the most (app, 600) makes room, not the one that sent last.
        #expect(queue.enqueue([more], within: bounds) == WebhookDrops(byApp: ["app": 1]))
        #expect(queue.count == 3)
        #expect(queue.bytes == 800)
    }

    @Test func eachQueuedEventCountsItsJSONTextAndItsBookkeeping() {
        let event = WebhookEvent.clientEvent(channel: "private-a", event: "client-x", data: String(repeating: "\u{1}", count: 100), socketID: "1.2", userID: nil)
        let queued = QueuedWebhookEvent(target: first, event: event, queuedAt: start)
        // Each control character is six bytes of JSON (\u0001).
        #expect(queued.bytes == event.encodedBytes + QueuedWebhookEvent.bookkeeping)
        #expect(event.encodedBytes > 600)
    }

    @Test func aPlanCutsABatchUnderItsBytesAndPassesOverWhatCanNeverBeSent() {
        let target = WebhookTarget(url: "http://127.0.0.1/h", events: [.clientEvent], filter: WebhookChannelFilter(channelPrefix: "private-"))
        func client(_ channel: String, _ bytes: Int) -> WebhookEvent {
            .clientEvent(channel: channel, event: "client-x", data: String(repeating: "x", count: bytes), socketID: "1.2", userID: nil)
        }
        let events = [client("private-a", 100), client("public-b", 100), client("private-c", 5_000), client("private-d", 300), client("private-e", 300)]
        let batch = WebhookBatch(target: first, ids: [1, 2, 3, 4, 5], events: events, firstQueuedAt: start, attempts: 0)
        let plan = WebhookBatchPlan(batch, target: target, cap: 700, largest: 4_096)
        // a fits; b is not wanted; c can never fit 4,096; d fits; e would pass the cap of 700.
        #expect(plan.events.map(\.channel) == ["private-a", "private-d"])
        #expect(plan.unwanted == 1 && plan.tooLarge == 1)
        #expect(plan.covered.ids == [1, 2, 3, 4])
        #expect(plan.bytes <= 700)
        let body = WebhookPayload(timeMilliseconds: 1_700_000_000_000, events: plan.events).encoded()
        #expect(body.count <= plan.bytes, "the estimate never falls short of the body")
        // A cap smaller than one event still sends that event alone.
        #expect(WebhookBatchPlan(batch, target: target, cap: 10, largest: 4_096).events.map(\.channel) == ["private-a"])
    }

    @Test func aTargetIsNamedByWhatItIsNotByItsPlace() {
        let a = WebhookTarget(url: "https://a.example.com/h", events: [.channelOccupied, .clientEvent])
        let reordered = WebhookTarget(url: "https://a.example.com/h", events: [.clientEvent, .channelOccupied], headers: ["X-Token": "t"])
        let b = WebhookTarget(url: "https://b.example.com/h", events: [.channelOccupied, .clientEvent])
        #expect(WebhookTargetID(appID: "app", target: a) == WebhookTargetID(appID: "app", target: reordered))
        #expect(WebhookTargetID(appID: "app", target: a) != WebhookTargetID(appID: "app", target: b))
        #expect(WebhookTargetID(appID: "app", target: a) != WebhookTargetID(appID: "app2", target: a))
        let id = WebhookTargetID(appID: "my#app", target: a)
        #expect(WebhookTargetID(id.description) == id)
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
