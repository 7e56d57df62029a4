import AsyncHTTPClient
import Clearance
import ClearanceSigning
import Foundation
import Logging

/// Delivers what a ``WebhookQueue`` holds: claims the batches that are due, sends each (one per
/// target at a time, the targets in parallel), and completes, reschedules (exponential back-off
/// with jitter) or, once the retry window is over, drops them, counted
/// (``HubCounter/webhooksDropped``) and logged (throttled).
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
    private let counters: HubCounters
    private let metrics: HubMetrics
    private let logger: Logger
    private let failureLog: ThrottledLog
    private let dropLog: ThrottledLog
    private let queueErrorLog: ThrottledLog
    private let flags = Locked((flushing: false, stopped: false))
    /// Wakes ``run()`` when it waits for a first target, or for ``stop()``.
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(
        queue: any WebhookQueue, destinations: [WebhookTargetID: Destination], client: HTTPClient, limits: HubLimits,
        pollInterval: Duration, counters: HubCounters, metrics: HubMetrics, logger: Logger
    ) {
        self.queue = queue
        self.destinations = Locked(destinations)
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        sender = WebhookSender(client: client, timeout: .seconds(limits.webhookAttemptTimeout))
        backoff = WebhookBackoff(firstDelay: limits.webhookFirstRetryDelay, retryDuration: limits.webhookRetryDuration)
        window = .seconds(limits.webhookBatchWindow)
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
                    for batch in try await queue.claim(limit: Self.batchLimit, window: window, flushing: flushing, now: Date()) {
                        group.addTask { await self.deliver(batch) }
                    }
                } catch {
                    queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
                }
                try? await Task.sleep(for: pollInterval)
            }
            group.cancelAll()
        }
    }

    private func deliver(_ batch: WebhookBatch) async {
        guard let destination = destinations.withLock({ $0[batch.target] }) else {
            // A target no longer configured (a cluster node with another configuration queued it).
            dropped(batch, reason: "the target is not configured on this node")
            try? await queue.drop(batch)
            return
        }
        do {
            try await sender.send(batch.events, to: destination.target, signer: destination.signer)
            try await queue.complete(batch)
            metrics.webhooks(appID: batch.target.appID, .delivered, count: batch.events.count)
            logger.debug("hub.webhook.delivered", metadata: ["target": "\(batch.target)", "events": "\(batch.events.count)"])
        } catch let failure as WebhookSender.Failure {
            guard !Task.isCancelled else { return }
            counters.increment(.webhookAttemptsFailed)
            metrics.webhooks(appID: batch.target.appID, .failed, count: batch.events.count)
            failureLog.record(["target": "\(batch.target)", "url": "\(destination.target.redactedURL)", "reason": "\(failure)", "attempt": "\(batch.attempts + 1)"])
            do {
                if let retryAt = backoff.retry(firstQueuedAt: batch.firstQueuedAt, attempts: batch.attempts + 1, now: Date()) {
                    try await queue.reschedule(batch, retryAt: retryAt)
                } else {
                    dropped(batch, reason: "retried for \(backoff.retryDuration) s: \(failure)")
                    try await queue.drop(batch)
                }
            } catch {
                queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
            }
        } catch {
            queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
        }
    }

    private func dropped(_ batch: WebhookBatch, reason: String) {
        counters.increment(.webhooksDropped, by: batch.events.count)
        metrics.webhooks(appID: batch.target.appID, .dropped, count: batch.events.count)
        dropLog.record(["target": "\(batch.target)", "events": "\(batch.events.count)", "reason": "\(reason)"])
    }
}
