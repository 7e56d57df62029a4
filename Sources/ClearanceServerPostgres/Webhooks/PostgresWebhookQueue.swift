import Clearance
import ClearanceServer
import Foundation
import Logging

/// The cluster's `WebhookQueue`, in PostgreSQL: what any node queued is delivered by whichever
/// node leases its target first, so a webhook queued by a node that dies (even with SIGKILL,
/// mid-delivery) is delivered by another once its lease runs out (at least once).
///
/// Each event is stored sealed with the cluster key (it holds channel names and client data);
/// a target's events go out in order, one batch at a time, under a lease of twice the attempt
/// timeout plus 5 s. Made by ``PostgresCluster/drivers``: a hub on a
/// ``PostgresCluster`` uses it without being told.
public final class PostgresWebhookQueue: WebhookQueue {
    private let connection: BackplaneConnection
    private let seal: BackplaneSeal
    private let node: String
    private let lease: Duration
    private let logger: Logger
    private let rejectionLog: ThrottledLog

    init(configuration: PostgresBackplaneConfiguration, node: String, limits: HubLimits, logger: Logger) {
        connection = BackplaneConnection(configuration: configuration, id: 3, logger: logger)
        seal = BackplaneSeal(key: configuration.clusterKey, namespace: configuration.namespace)
        self.node = node
        lease = .seconds(limits.webhooks.webhookAttemptTimeout * 2 + 5)
        self.logger = logger
        rejectionLog = ThrottledLog("backplane.webhook.rejected", logger: logger)
    }

    public func enqueue(_ events: [QueuedWebhookEvent], within bounds: WebhookQueueBounds) async throws -> WebhookDrops {
        let rows = events.map { queued in
            let json = String(decoding: (try? JSONEncoder().encode(queued.event)) ?? Data(), as: UTF8.self)
            let target = queued.target.description
            return (target: target, body: seal.seal(json, node: "webhook:\(target)", sequence: 0, sentAt: queued.queuedAt, carrier: .webhook), queuedAt: queued.queuedAt)
        }
        let (node, logger) = (node, logger)
        let dropped = try await connection.run { schema, connection in
            try await schema.enqueueWebhooks(rows, node: node, bounds: bounds, on: connection, logger: logger)
        }
        return WebhookDrops(byApp: Dictionary(dropped.map { ($0, 1) }, uniquingKeysWith: +))
    }

    public func claim(limit batchLimit: Int, window: Duration, flushing: Bool, now: Date) async throws -> [WebhookBatch] {
        let (node, lease, logger) = (node, lease, logger)
        return try await connection.run { schema, connection in
            var batches: [WebhookBatch] = []
            for (target, attempts) in try await schema.claimTargets(node: node, window: window, flushing: flushing, lease: lease, on: connection, logger: logger) {
                let rows = try await schema.headWebhooks(target: target, limit: batchLimit, on: connection, logger: logger)
                guard let id = WebhookTargetID(target), let first = rows.first else {
                    try await schema.finishWebhooks(ids: rows.map(\.id), target: target, node: node, on: connection, logger: logger)
                    continue
                }
                var ids: [Int64] = []
                var events: [WebhookEvent] = []
                var unreadable: [Int64] = []
                for row in rows {
                    if let event = self.open(row.body, target: target) {
                        ids.append(row.id)
                        events.append(event)
                    } else {
                        unreadable.append(row.id)
                    }
                }
                if !unreadable.isEmpty {
                    try await schema.execute("DELETE FROM \(unescaped: schema.webhooks) WHERE id = ANY(\(unreadable))", on: connection, logger: logger)
                }
                batches.append(WebhookBatch(target: id, ids: ids, events: events, firstQueuedAt: first.queuedAt, attempts: attempts))
            }
            return batches
        }
    }

    public func complete(_ batch: WebhookBatch) async throws {
        try await finish(batch)
    }

    public func drop(_ batch: WebhookBatch) async throws {
        try await finish(batch)
    }

    public func reschedule(_ batch: WebhookBatch, retryAt: Date) async throws {
        let (node, logger) = (node, logger)
        try await connection.run { schema, connection in
            try await schema.rescheduleWebhooks(
                target: batch.target.description, node: node, attempts: batch.attempts + 1, retryAt: retryAt, on: connection, logger: logger)
        }
    }

    /// 200 ms: each look is a query.
    public var pollInterval: Duration { .milliseconds(200) }

    /// Events this node queued that no node has delivered (or dropped) yet.
    public func pendingCount() async throws -> Int {
        let (node, logger) = (node, logger)
        return try await connection.run { schema, connection in
            try await schema.pendingWebhooks(queuedBy: node, on: connection, logger: logger)
        }
    }

    /// Closes its connection.
    func close() async {
        await connection.close()
    }

    private func finish(_ batch: WebhookBatch) async throws {
        let (node, logger) = (node, logger)
        try await connection.run { schema, connection in
            try await schema.finishWebhooks(ids: batch.ids, target: batch.target.description, node: node, on: connection, logger: logger)
        }
    }

    /// The event a row holds, or nil (dropped, counted in the log) when it does not open with
    /// the cluster key for its target.
    private func open(_ body: String, target: String) -> WebhookEvent? {
        guard let envelope = try? seal.open(body, node: "webhook:\(target)", carrier: .webhook),
              let event = try? JSONDecoder().decode(WebhookEvent.self, from: Data(envelope.body.utf8))
        else {
            rejectionLog.record(["target": "\(target)", "reason": "a queued webhook does not open with the cluster key"])
            return nil
        }
        return event
    }
}
