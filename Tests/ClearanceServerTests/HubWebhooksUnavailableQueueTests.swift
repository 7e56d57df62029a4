import Clearance
import ClearanceServer
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// A hub that stops while its webhook queue is unavailable (a database gone first) ends: the
/// last move into the queue tries once, and what it cannot queue is dropped and counted under
/// its app. (It used to try again every 500 ms for ever; once its task was cancelled, the sleep
/// returned at once and the retry loop held a thread: a cluster test hung in its clean-up.)
@Suite("Hub webhooks: stopping while the queue is unavailable", .timeLimit(.minutes(1)))
struct HubWebhooksUnavailableQueueTests {
    /// How the hub's webhook task ends: by ``HubWebhooks/drain()`` alone, or cancelled as well
    /// (a task group ended around it).
    enum Ending: String, CaseIterable, Sendable, CustomStringConvertible {
        case drained
        case cancelledThenDrained
        var description: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func whatTheQueueCannotTakeIsDroppedAndCountedAndTheTaskEnds(_ ending: Ending) async throws {
        let queue = UnavailableWebhookQueue()
        let counters = HubCounters()
        // drain() waits this long for what is pending (here: events the queue cannot take).
        let configuration = TestHub.configuration(limits: TestHub.limits { $0.webhooks.webhookShutdownWait = 0.2 }) { app in
            app.webhooks = [WebhookTarget(url: "http://127.0.0.1:9/webhooks", events: [.channelOccupied])]
        }
        let logs = LogCapture()
        let webhooks = try HubWebhooks(configuration: configuration, queue: queue, counters: counters, logger: logs.logger())
        let ended = Locked(false)
        let run = Task {
            await webhooks.run()
            ended.withLock { $0 = true }
        }
        webhooks.emit(appID: TestHub.appID, .channelOccupied(channel: "a"))
        webhooks.emit(appID: TestHub.appID, .channelOccupied(channel: "b"))
        // Positive control: the events reached the queue, which refused them (they are kept).
        try await eventually("the queue refused the events") { queue.attempts >= 1 }
        #expect(counters.value(.webhooksDropped) == 0)

        if ending == .cancelledThenDrained { run.cancel() }
        await webhooks.drain()
        try await eventually("the webhook task ended") { ended.withLock { $0 } }
        #expect(counters.value(.webhooksDropped) == 2)
        let dropped = logs.all.filter { $0.contains("hub.webhook.dropped") }
        #expect(dropped.count == 1)
        #expect(dropped.allSatisfy { line in
            ["app_id=\(TestHub.appID)", "events=2", "the hub stopped while the queue was unavailable"].allSatisfy(line.contains)
        }, "\(dropped)")
        // No retry loop once the hub stopped: two attempts when the first failure was handled
        // before drain() ended (the last move then tried once more), one when the hub had stopped
        // by then (a loaded machine: that failed move dropped the events at once). None after.
        let attempts = queue.attempts
        #expect((1...2).contains(attempts))
        await run.value
        #expect(queue.attempts == attempts)
    }
}

/// A webhook queue whose database is away: every call fails.
final class UnavailableWebhookQueue: WebhookQueue {
    struct Unavailable: Error {}

    private let count = Locked(0)

    /// How many times ``enqueue(_:within:)`` was called.
    var attempts: Int { count.withLock { $0 } }

    func enqueue(_ events: [QueuedWebhookEvent], within bounds: WebhookQueueBounds) async throws -> WebhookDrops {
        count.withLock { $0 += 1 }
        throw Unavailable()
    }

    func claim(limit: Int, window: Duration, flushing: Bool, now: Date) async throws -> [WebhookBatch] { throw Unavailable() }
    func complete(_ batch: WebhookBatch) async throws { throw Unavailable() }
    func reschedule(_ batch: WebhookBatch, retryAt: Date) async throws { throw Unavailable() }
    func drop(_ batch: WebhookBatch) async throws { throw Unavailable() }
    func pendingCount() async throws -> Int { throw Unavailable() }
}
