import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// Webhook batching and back-off run on the hub's clock: on a manual one the batch window and
/// the retry delay take no wall time, and the receiver stamps each request with the hub time it
/// arrived at, so "not before" is read from the stamp, never from a wait.
@Suite("Hub: webhook batching and back-off on the hub's clock", .timeLimit(.minutes(2)))
struct HubWebhookClockTests {
    @Test func eventsWaitForTheBatchWindowThenGoOutInOneRequest() async throws {
        let clock = ManualHubClock()
        try await Self.withHub(clock: clock, limits: { $0.webhooks.webhookBatchWindow = 5 }) { hub, receiver, queue in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "a")
            let first = try await queue.queuedAt(channel: "a")
            await clock.advance(by: .seconds(2))
            try await TestHub.subscribe(client, socketID: socketID, channel: "b")
            _ = try await queue.queuedAt(channel: "b")
            // The window of the first event ends 5 s after it was queued, on the hub's clock.
            await clock.advance(by: .seconds(first.addingTimeInterval(5).timeIntervalSince(clock.date)))
            let delivery = try await receiver.requests(count: 1)[0]
            // Sent before the window ended, the request would hold "a" alone and say so.
            #expect(delivery.events.map(\.channel) == ["a", "b"])
            #expect(delivery.hubTime == first.addingTimeInterval(5))
            // Its time_ms is the hub's time when it was sent, not the machine's.
            #expect(delivery.timeMilliseconds == Int64((delivery.hubTime.timeIntervalSince1970 * 1_000).rounded(.down)))
            #expect(delivery.answeredWith == 200)
            await client.disconnect()
        }
    }

    /// Limits for the back-off tests: a 1 s batch window, a first retry after 20 s, and retries
    /// for `window` seconds.
    static func retrying(for window: Double) -> @Sendable (inout HubLimits) -> Void {
        { limits in
            limits.webhooks.webhookBatchWindow = 1
            limits.webhooks.webhookFirstRetryDelay = 20
            limits.webhooks.webhookRetryDuration = window
        }
    }

    @Test func aFailedDeliveryIsRetriedAfterItsBackOffOnTheHubsClock() async throws {
        let clock = ManualHubClock()
        try await Self.withHub(clock: clock, failing: 1, limits: Self.retrying(for: 600)) { hub, receiver, queue in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "a")
            let queuedAt = try await queue.queuedAt(channel: "a")
            await clock.advance(by: .seconds(queuedAt.addingTimeInterval(1).timeIntervalSince(clock.date)))
            let failed = try await receiver.requests(count: 1)[0]
            #expect(failed.answeredWith == 500)
            #expect(failed.hubTime == queuedAt.addingTimeInterval(1))
            // The dispatcher sets the retry from the hub's clock: 20 s less a random part of up
            // to a half after the failure.
            let retryAt = try await queue.firstRetry()
            let delay = retryAt.timeIntervalSince(failed.hubTime)
            #expect(delay >= 10 && delay <= 20, "retry \(delay) s after the failure")
            await clock.advance(by: .seconds(20))
            let retried = try await receiver.requests(count: 2)[1]
            #expect(retried.answeredWith == 200)
            #expect(retried.events.map(\.channel) == ["a"])
            // Sent before its time, the retry's stamp would be earlier.
            #expect(retried.hubTime >= retryAt)
            await client.disconnect()
        }
    }

    /// The review's recipe of a receiver down for five minutes, on the hub's clock: the batch is
    /// tried again at each back-off until the retry window (300 s from when it was queued) is
    /// over, then dropped and counted; five minutes of hub time in well under a second.
    @Test func aReceiverDownForTheWholeRetryWindowGetsEveryRetryThenTheBatchIsDroppedAndCounted() async throws {
        let clock = ManualHubClock()
        try await Self.withHub(clock: clock, failing: .max, limits: Self.retrying(for: 300)) { hub, receiver, queue in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "a")
            let queuedAt = try await queue.queuedAt(channel: "a")
            await clock.advance(by: .seconds(queuedAt.addingTimeInterval(1).timeIntervalSince(clock.date)))
            var attempts = 1
            _ = try await receiver.requests(count: attempts)
            // After each failure the dispatcher sets a retry time, or gives up: then it drops.
            while true {
                try await eventually("attempt \(attempts) rescheduled or dropped") {
                    queue.retryTimes.count >= attempts || hub.counters.value(.webhooksDropped) > 0
                }
                if hub.counters.value(.webhooksDropped) > 0 { break }
                let retryAt = queue.retryTimes[attempts - 1]
                #expect(retryAt.timeIntervalSince(queuedAt) <= 300, "a retry past the window: \(retryAt.timeIntervalSince(queuedAt)) s")
                await clock.advance(by: .seconds(max(0, retryAt.timeIntervalSince(clock.date))))
                attempts += 1
                _ = try await receiver.requests(count: attempts)
            }
            let requests = try await receiver.requests(count: attempts)
            #expect(requests.allSatisfy { $0.answeredWith == 500 && $0.events.map(\.channel) == ["a"] })
            #expect(attempts >= 5, "\(attempts) attempts in the window")
            #expect(requests.last!.hubTime.timeIntervalSince(queuedAt) <= 300)
            #expect(hub.counters.value(.webhooksDropped) == 1)
            #expect(try await queue.pendingCount() == 0)
            await client.disconnect()
        }
    }

    /// A receiver where nothing listens fails each attempt at once, not at the attempt's
    /// deadline (here a minute, and never reached: the test gives the failure 10 s): the target's
    /// batch is not held in flight, and the back-off decides the next attempt.
    @Test func anAttemptAtAPortWhereNothingListensFailsAtOnceNotAtItsDeadline() async throws {
        let clock = ManualHubClock()
        let deadPort = try LoopbackPort.free()
        let configuration = TestHub.configuration(limits: TestHub.limits {
            $0.webhooks.webhookBatchWindow = 1
            $0.webhooks.webhookAttemptTimeout = 60
            $0.webhooks.webhookShutdownWait = 0  // the stop does not wait for the dead receiver
        }) { app in
            app.webhooks = [WebhookTarget(url: "http://127.0.0.1:\(deadPort)/hooks", events: [.channelOccupied])]
        }
        let queue = ObservedWebhookQueue()
        let hub = try await HubServer.start(configuration, logger: TestHub.quietLogger, webhookQueue: queue, clock: clock)
        try await withCleanup {
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "a")
            let queuedAt = try await queue.queuedAt(channel: "a")
            await clock.advance(by: .seconds(queuedAt.addingTimeInterval(1).timeIntervalSince(clock.date)))
            try await eventually("the attempt failed and was rescheduled", timeout: .seconds(10)) { !queue.retryTimes.isEmpty }
            #expect(hub.counters.value(.webhookAttemptsFailed) == 1)
            await client.disconnect()
        } cleanup: {
            await hub.stop()
        }
    }

    /// Runs `body` with a hub on `clock` whose app sends `channel_occupied` to a receiver that
    /// fails its first `failing` requests with 500, through a queue that shows what it was told.
    private static func withHub(
        clock: ManualHubClock, failing: Int = 0, limits: @escaping @Sendable (inout HubLimits) -> Void,
        _ body: (HubServer, ClockedWebhookReceiver, ObservedWebhookQueue) async throws -> Void
    ) async throws {
        let receiver = try await ClockedWebhookReceiver.start(clock: clock, failing: failing)
        try await withCleanup {
            let configuration = TestHub.configuration(limits: TestHub.limits(limits)) { app in
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.channelOccupied])]
            }
            let queue = ObservedWebhookQueue()
            let hub = try await HubServer.start(configuration, logger: TestHub.quietLogger, webhookQueue: queue, clock: clock)
            try await withCleanup { try await body(hub, receiver, queue) } cleanup: { await hub.stop() }
        } cleanup: {
            await receiver.stop()
        }
    }
}

/// A webhook receiver in this process that stamps each request with the hub's time, and answers
/// the first `failing` requests with 500 (verified or not), the others with 200 when verified.
final class ClockedWebhookReceiver: Sendable {
    struct Request: Sendable {
        let hubTime: Date
        /// The body's `time_ms`.
        let timeMilliseconds: Int64
        let events: [WebhookEvent]
        let answeredWith: Int
    }

    private let server: RunningServer
    private let received: Locked<[Request]>

    private init(server: RunningServer, received: Locked<[Request]>) {
        self.server = server
        self.received = received
    }

    static func start(clock: ManualHubClock, failing: Int) async throws -> ClockedWebhookReceiver {
        let verifier = try WebhookReceiver(key: TestHub.key, secret: TestHub.secret)
        let received = Locked([Request]())
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let now = clock.date
            let body = try await request.body.collect(upTo: 1 << 20)
            let payload = try verifier.verify(
                key: request.headers[HTTPField.Name(WebhookSigner.keyHeaderName)!],
                signature: request.headers[HTTPField.Name(WebhookSigner.signatureHeaderName)!],
                body: body.readableBytesView, now: now)
            let fails = received.withLock { requests in
                requests.append(Request(
                    hubTime: now, timeMilliseconds: payload.timeMilliseconds, events: payload.events,
                    answeredWith: requests.count < failing ? 500 : 200))
                return requests.count <= failing
            }
            return Response(status: fails ? .internalServerError : .ok)
        }
        return ClockedWebhookReceiver(server: try await RunningServer.start(router, logger: TestHub.quietLogger), received: received)
    }

    var url: String { server.baseURL.absoluteString + "/hooks" }

    /// The first `count` requests, once that many have arrived.
    func requests(count: Int) async throws -> [Request] {
        try await eventually("\(count) webhook requests") { received.withLock { $0.count >= count } }
        return received.withLock { Array($0.prefix(count)) }
    }

    func stop() async { await server.stop() }
}

/// The hub's in-memory queue, showing what the hub queued (and when, on its clock) and when the
/// dispatcher set failed batches to be retried.
final class ObservedWebhookQueue: WebhookQueue {
    private let queue: any WebhookQueue = InMemoryWebhookQueue()
    private let queued = Locked([QueuedWebhookEvent]())
    private let retries = Locked([Date]())

    /// When the hub queued the (first) event of `channel`, once it has.
    func queuedAt(channel: String) async throws -> Date {
        try await eventually("an event of \(channel) queued") { queued.withLock { $0.contains { $0.event.channel == channel } } }
        return queued.withLock { $0.first { $0.event.channel == channel }!.queuedAt }
    }

    /// Returns once the hub has queued `count` events.
    func queued(count: Int) async throws {
        try await eventually("\(count) events queued") { queued.withLock { $0.count >= count } }
    }

    /// The retry times the dispatcher set, in order.
    var retryTimes: [Date] { retries.withLock { $0 } }

    /// The first retry time the dispatcher set, once it has.
    func firstRetry() async throws -> Date {
        try await eventually("a batch rescheduled") { !retries.withLock { $0.isEmpty } }
        return retries.withLock { $0[0] }
    }

    func enqueue(_ events: [QueuedWebhookEvent], within bounds: WebhookQueueBounds) async throws -> WebhookDrops {
        queued.withLock { $0.append(contentsOf: events) }
        return try await queue.enqueue(events, within: bounds)
    }

    func claim(limit: Int, window: Duration, flushing: Bool, now: Date) async throws -> [WebhookBatch] {
        try await queue.claim(limit: limit, window: window, flushing: flushing, now: now)
    }

    func complete(_ batch: WebhookBatch) async throws { try await queue.complete(batch) }

    func reschedule(_ batch: WebhookBatch, retryAt: Date) async throws {
        try await queue.reschedule(batch, retryAt: retryAt)
        retries.withLock { $0.append(retryAt) }
    }

    func drop(_ batch: WebhookBatch) async throws { try await queue.drop(batch) }

    func pendingCount() async throws -> Int { try await queue.pendingCount() }

    var pollInterval: Duration { queue.pollInterval }
}
