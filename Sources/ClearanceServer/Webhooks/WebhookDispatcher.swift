import AsyncHTTPClient
import Clearance
import ClearanceSigning
import Foundation
import Logging

/// Delivers what a ``WebhookQueue`` holds: claims the batches that are due, sends each (one per
/// target at a time, the targets in parallel), and completes, reschedules (exponential back-off
/// with jitter) or, once the retry window is over, drops them, counted
/// (``HubCounter/webhooksDropped``) and logged (throttled, per app).
///
/// A POST stays within ``HubWebhookLimits/maxWebhookBatchBytes`` (``WebhookBatchPlan``); a receiver
/// that answers 413 gets half as much next time, at once, down to one event, and an event it
/// refuses alone is dropped, so a 413 never holds up the events behind it.
final class WebhookDispatcher: Sendable {
    /// What the dispatcher knows of a target.
    struct Destination: Sendable {
        let target: WebhookTarget
        let signer: WebhookSigner
    }

    /// Most events in one POST.
    static let batchLimit = 100

    let queue: any WebhookQueue
    private let destinations: Locked<[WebhookTargetID: Destination]>
    private let sender: WebhookSender
    private let backoff: WebhookBackoff
    private let window: Duration
    private let pollInterval: Duration
    /// The hub's clock: batch windows and back-off.
    private let clock: any HubClock
    private let counters: HubCounters
    private let metrics: HubMetrics
    private let logger: Logger
    private let failureLog: ThrottledLog
    private let dropLog: ThrottledLog
    private let queueErrorLog: ThrottledLog
    private let flags = Locked((flushing: false, stopped: false))
    /// ``HubWebhookLimits/maxWebhookBatchBytes``.
    private let largestBody: Int
    /// Each target's bound on a body, smaller than ``largestBody`` after a 413.
    private let bodyCaps = Locked([WebhookTargetID: Int]())
    /// Wakes ``run()`` when it waits for a first target, or for ``stop()``.
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(
        queue: any WebhookQueue, destinations: [WebhookTargetID: Destination], client: HTTPClient, limits: HubLimits,
        pollInterval: Duration, counters: HubCounters, metrics: HubMetrics, clock: any HubClock = SystemHubClock(), logger: Logger
    ) {
        self.clock = clock
        self.queue = queue
        self.destinations = Locked(destinations)
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        sender = WebhookSender(client: client, timeout: .seconds(limits.webhooks.webhookAttemptTimeout))
        backoff = WebhookBackoff(firstDelay: limits.webhooks.webhookFirstRetryDelay, retryDuration: limits.webhooks.webhookRetryDuration)
        window = .seconds(limits.webhooks.webhookBatchWindow)
        largestBody = limits.webhooks.maxWebhookBatchBytes
        self.pollInterval = pollInterval
        self.counters = counters
        self.metrics = metrics
        self.logger = logger
        failureLog = ThrottledLog("hub.webhook.failed", level: .notice, logger: logger)
        dropLog = ThrottledLog("hub.webhook.dropped", logger: logger)
        queueErrorLog = ThrottledLog("hub.webhook.queue.unavailable", logger: logger)
    }

    /// Delivers to `destinations` from now on (a reload).
    func serve(_ destinations: [WebhookTargetID: Destination]) {
        self.destinations.withLock { $0 = destinations }
        bodyCaps.withLock { $0.removeAll() }
        changed.yield()
    }

    /// From now on, batches go out without waiting for their window (the hub stops).
    func flush() {
        flags.withLock { $0.flushing = true }
    }

    /// Ends ``run()`` (deliveries in flight are cancelled: their events stay queued).
    func stop() {
        flags.withLock { $0.stopped = true }
        changed.yield()
    }

    /// Claims and delivers until ``stop()``.
    func run() async {
        var wakes = changes.makeAsyncIterator()
        await withDiscardingTaskGroup { group in
            while true {
                let (flushing, stopped) = flags.withLock { ($0.flushing, $0.stopped) }
                if stopped || Task.isCancelled { break }
                // No app has a target (none yet: a reload may add one): nothing to claim until then.
                if destinations.withLock({ $0.isEmpty }) {
                    guard await wakes.next() != nil else { break }
                    continue
                }
                do {
                    for batch in try await queue.claim(limit: Self.batchLimit, window: window, flushing: flushing, now: clock.date) {
                        group.addTask { await self.deliver(batch) }
                    }
                } catch {
                    queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
                }
                // The poll's pace is the machine's (a stopping hub must see `stop()` soon); what
                // is due (batch windows, back-off) is decided on the hub's clock.
                try? await Task.sleep(for: pollInterval)
            }
            group.cancelAll()
        }
    }

    private func deliver(_ batch: WebhookBatch) async {
        guard let destination = destinations.withLock({ $0[batch.target] }) else {
            // A target no longer configured (a reload changed its URL, events or filter, or a
            // cluster node with another configuration queued it).
            dropped(batch.events.count, of: batch.target, reason: "the target is not configured on this node")
            try? await queue.drop(batch)
            return
        }
        let cap = bodyCaps.withLock { $0[batch.target] } ?? largestBody
        let plan = WebhookBatchPlan(batch, target: destination.target, cap: cap, largest: largestBody)
        do {
            if !plan.events.isEmpty {
                try await sender.send(plan.events, to: destination.target, signer: destination.signer, now: clock.date)
                metrics.webhooks(appID: batch.target.appID, .delivered, count: plan.events.count)
                logger.debug("hub.webhook.delivered", metadata: ["target": "\(batch.target)", "events": "\(plan.events.count)"])
            }
            settled(plan)
            try await queue.complete(plan.covered)
        } catch let failure as WebhookSender.Failure {
            guard !Task.isCancelled else { return }
            counters.increment(.webhookAttemptsFailed)
            metrics.webhooks(appID: batch.target.appID, .failed, count: plan.events.count)
            failureLog.record(appID: batch.target.appID, [
                "target": "\(batch.target)", "url": "\(destination.target.redactedURL)", "reason": "\(failure)",
                "attempt": "\(batch.attempts + 1)", "events": "\(plan.events.count)", "bytes": "\(plan.bytes)",
            ])
            do {
                if case .status(413) = failure {
                    try await tooLarge(plan, batch: batch)
                } else if let retryAt = backoff.retry(firstQueuedAt: batch.firstQueuedAt, attempts: batch.attempts + 1, now: clock.date) {
                    try await queue.reschedule(batch, retryAt: retryAt)
                } else {
                    settled(plan)
                    dropped(plan.events.count, of: batch.target, reason: "retried for \(backoff.retryDuration) s: \(failure)")
                    try await queue.drop(plan.covered)
                }
            } catch {
                queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
            }
        } catch {
            queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
        }
    }

    /// The receiver answered 413: a batch of several events is tried again at once at half the
    /// size; a single event it refuses alone is dropped, so that the ones behind it go on.
    private func tooLarge(_ plan: WebhookBatchPlan, batch: WebhookBatch) async throws {
        if plan.events.count > 1 {
            bodyCaps.withLock { $0[batch.target] = max(WebhookBatchPlan.envelopeBytes + 1, plan.bytes / 2) }
            try await queue.reschedule(batch, retryAt: clock.date)
        } else {
            settled(plan)
            dropped(plan.events.count, of: batch.target, reason: "the receiver refuses the event alone as too large (413, \(plan.bytes) bytes)")
            try await queue.drop(plan.covered)
        }
    }

    /// Counts the events the plan passed over (never to be sent) as dropped.
    private func settled(_ plan: WebhookBatchPlan) {
        if plan.unwanted > 0 {
            dropped(plan.unwanted, of: plan.covered.target, reason: "the target no longer wants them (its configuration changed)")
        }
        if plan.tooLarge > 0 {
            dropped(plan.tooLarge, of: plan.covered.target, reason: "larger alone than maxWebhookBatchBytes (\(largestBody))")
        }
    }

    private func dropped(_ count: Int, of target: WebhookTargetID, reason: String) {
        guard count > 0 else { return }
        counters.increment(.webhooksDropped, by: count)
        metrics.webhooks(appID: target.appID, .dropped, count: count)
        dropLog.record(appID: target.appID, ["target": "\(target)", "events": "\(count)", "reason": "\(reason)"])
    }
}
