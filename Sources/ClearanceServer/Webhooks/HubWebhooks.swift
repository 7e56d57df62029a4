import AsyncHTTPClient
import Clearance
import ClearanceSigning
import Foundation
import Logging

/// The hub's webhooks: the one entry point events are emitted through (``emit(appID:_:)``, which
/// only appends to an intake and never blocks), the task that moves them into the
/// ``WebhookQueue``, and the ``WebhookDispatcher`` that delivers them.
///
/// hub event → ``emit(appID:_:)`` (filtered per target) → intake → ``WebhookQueue`` →
/// ``WebhookDispatcher`` → receiver.
package final class HubWebhooks: WebhookEmitter {
    /// Every app's targets, and what the dispatcher needs to reach each: built by
    /// ``targets(for:)``, in force from ``serve(_:)`` on (at start, and on a reload).
    package struct Targets: Sendable {
        fileprivate var byApp: [String: [(id: WebhookTargetID, target: WebhookTarget)]] = [:]
        fileprivate var destinations: [WebhookTargetID: WebhookDispatcher.Destination] = [:]
        /// How much the queue may hold for these apps (each app's part of the hub's budget).
        fileprivate var bounds: WebhookQueueBounds
    }

    private let current: Locked<Targets>
    /// Events emitted and not yet in the queue, bounded like the queue (in all).
    private let intake = Locked(WebhookIntake())
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// Set when ``drain()`` ends ``run()``: a move that fails no longer waits to try again.
    private let drained = Locked(false)
    /// The dispatcher while ``run()`` runs.
    private let dispatcher = Locked<WebhookDispatcher?>(nil)
    private let queue: any WebhookQueue
    private let limits: HubLimits
    private let counters: HubCounters
    private let metrics: HubMetrics
    private let logger: Logger
    private let dropLog: ThrottledLog
    private let queueErrorLog: ThrottledLog
    /// The hub's clock: when events were queued, batch windows and back-off.
    private let clock: any HubClock

    /// - Parameters:
    ///   - queue: Where events wait (a new ``InMemoryWebhookQueue`` by default).
    ///   - metrics: Where `clearance_webhooks_total` is counted.
    package init(
        configuration: HubConfiguration, queue: (any WebhookQueue)? = nil,
        counters: HubCounters, metrics: HubMetrics = HubMetrics(), clock: any HubClock = SystemHubClock(), logger: Logger
    ) throws(HubConfigurationError) {
        self.clock = clock
        current = Locked(try Self.targets(for: configuration))
        let queue = queue ?? InMemoryWebhookQueue()
        self.queue = queue
        limits = configuration.limits
        self.counters = counters
        self.metrics = metrics
        self.logger = logger
        dropLog = ThrottledLog("hub.webhook.dropped", logger: logger)
        queueErrorLog = ThrottledLog("hub.webhook.queue.unavailable", logger: logger)
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The targets of `configuration`'s apps, each with its app's signer.
    /// - Throws: ``HubConfigurationError/invalidApp(id:reason:)`` for an app that cannot sign.
    package func targets(for configuration: HubConfiguration) throws(HubConfigurationError) -> Targets {
        try Self.targets(for: configuration)
    }

    private static func targets(for configuration: HubConfiguration) throws(HubConfigurationError) -> Targets {
        var targets = Targets(bounds: WebhookQueueBounds(limits: configuration.limits, apps: configuration.sharingApps))
        for app in configuration.apps where !app.webhooks.isEmpty {
            let signer: WebhookSigner
            do {
                signer = try WebhookSigner(key: app.key, secret: app.secret)
            } catch {
                throw .invalidApp(id: app.id, reason: error)
            }
            for target in app.webhooks {
                let id = WebhookTargetID(appID: app.id, target: target)
                targets.byApp[app.id, default: []].append((id, target))
                targets.destinations[id] = .init(target: target, signer: signer)
            }
        }
        return targets
    }

    /// Emits and delivers to `targets` from now on (a reload): events already queued for a
    /// target go to the same target (the same URL, events and filter) wherever it now is in its
    /// app's list, signed with its app's current secret; those of a target that is gone are
    /// dropped, counted, when their turn comes.
    package func serve(_ targets: Targets) {
        current.withLock { $0 = targets }
        dispatcher.withLock { $0 }?.serve(targets.destinations)
    }

    package func emit(appID: String, _ event: WebhookEvent) {
        guard let targets = current.withLock({ $0.byApp[appID] }) else { return }
        let now = clock.date
        let wanting = targets.filter { $0.target.wants(event) }
        guard !wanting.isEmpty else { return }
        let bytes = event.encodedBytes + QueuedWebhookEvent.bookkeeping
        let queued = wanting.map { QueuedWebhookEvent(target: $0.id, event: event, queuedAt: now, bytes: bytes) }
        let dropped = intake.withLock { $0.append(queued, limits: limits) }
        droppedFromIntake(dropped, reason: "the intake is full (the queue does not keep up)")
        wake.yield()
    }

    package func wants(_ kind: WebhookEventKind, appID: String) -> Bool {
        current.withLock { $0.byApp[appID]?.contains { $0.target.events.contains(kind) } ?? false }
    }

    /// Moves emitted events into the queue and delivers them, until ``drain()`` ends it. Its
    /// HTTP client lives as long as it runs (redirects refused: a receiver's redirect never
    /// carries the signature elsewhere). A connection the receiver refuses fails the attempt at
    /// once: by default AsyncHTTPClient would try to connect again and again until the attempt's
    /// deadline, holding the target's one batch in flight that long; the hub's own back-off
    /// decides when to try again.
    package func run() async {
        var http = HTTPClient.Configuration(redirectConfiguration: .disallow)
        http.timeout = .init(connect: .seconds(Int64(max(1, limits.webhooks.webhookAttemptTimeout.rounded(.up)))))
        http.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: http)
        let dispatcher = WebhookDispatcher(
            queue: queue, destinations: current.withLock { $0.destinations }, client: client, limits: limits,
            pollInterval: queue.pollInterval, counters: counters, metrics: metrics, clock: clock, logger: logger)
        self.dispatcher.withLock { $0 = dispatcher }
        await withDiscardingTaskGroup { group in
            group.addTask { await dispatcher.run() }
            for await _ in wakes {
                await moveIntake()
            }
            await moveIntake()
        }
        try? await client.shutdown()
    }

    /// For a stopping hub: sends what is pending without waiting for batch windows, for at most
    /// ``HubWebhookLimits/webhookShutdownWait``, then ends ``run()``. What is still pending then is
    /// logged (`hub.webhooks.undelivered`); a queue that persists keeps it for another node.
    package func drain() async {
        guard let dispatcher = dispatcher.withLock({ $0 }) else {
            drained.withLock { $0 = true }
        wake.finish()
            return
        }
        dispatcher.flush()
        let deadline = ContinuousClock.now + .seconds(limits.webhooks.webhookShutdownWait)
        var pending = 0
        repeat {
            let waiting = intake.withLock { $0.events.count }
            pending = waiting + ((try? await queue.pendingCount()) ?? 0)
            if pending == 0 { break }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        } while ContinuousClock.now < deadline
        dispatcher.stop()
        drained.withLock { $0 = true }
        wake.finish()
        if pending > 0 {
            logger.warning("hub.webhooks.undelivered", metadata: ["events": "\(pending)", "waited": "\(limits.webhooks.webhookShutdownWait)"])
        }
    }

    /// Moves what was emitted into the queue. While the queue is unavailable (a database away)
    /// the events stay first in line and it tries again every 500 ms, until it is cancelled or
    /// ``drain()`` ended. Once the hub stops (drained or cancelled: nothing will try again), a
    /// failed move drops what the queue could not take, counted under its app: the last move
    /// tries once, never in a loop.
    private func moveIntake() async {
        while true {
            let batch = intake.withLock { $0.takeAll() }
            guard !batch.isEmpty else { return }
            do {
                let bounds = current.withLock { $0.bounds }
                let drops = try await queue.enqueue(batch, within: bounds)
                for (appID, count) in drops.byApp.sorted(by: { $0.key < $1.key }) {
                    // Counted and logged under the app whose events made room.
                    metrics.webhooks(appID: appID, .dropped, count: count)
                    self.dropped(count, appID: appID, reason: "the app's part of the webhook queue is full (\(bounds.maxEventsPerApp) events, \(bounds.maxBytesPerApp) bytes; the hub's \(bounds.maxEvents) and \(bounds.maxBytes))")
                }
            } catch {
                queueErrorLog.record(["reason": "\(Redactor.describe(error))"])
                if drained.withLock({ $0 }) || Task.isCancelled {
                    return droppedFromIntake(batch, reason: "the hub stopped while the queue was unavailable")
                }
                // Kept first in line for the next try (or for the last move, once cancelled).
                let dropped = intake.withLock { $0.putBack(batch, limits: limits) }
                droppedFromIntake(dropped, reason: "the queue is unavailable and the intake is full")
                do { try await Task.sleep(for: .milliseconds(500)) } catch { return }
                if drained.withLock({ $0 }) { return }
            }
        }
    }

    private func droppedFromIntake(_ dropped: [QueuedWebhookEvent], reason: String) {
        for (appID, events) in Dictionary(grouping: dropped, by: \.target.appID) {
            metrics.webhooks(appID: appID, .dropped, count: events.count)
            self.dropped(events.count, appID: appID, reason: reason)
        }
    }

    private func dropped(_ count: Int, appID: String? = nil, reason: String) {
        counters.increment(.webhooksDropped, by: count)
        let metadata: Logger.Metadata = ["events": "\(count)", "reason": "\(reason)"]
        if let appID { dropLog.record(appID: appID, metadata) } else { dropLog.record(metadata) }
    }
}
