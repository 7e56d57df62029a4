import Foundation
import ClearanceServer
import PostgresNIO

/// The cluster's webhook SQL: which node has subscribers of which channel (occupancy, so that
/// `channel_occupied` and `channel_vacated` are decided once for the cluster), and the queue of
/// webhook events with a lease per target (so that a node that dies mid-delivery leaves its
/// work to the others). Channels and events are stored sealed; the occupancy table finds a
/// channel by its HMAC.
extension BackplaneSchema {
    /// The `CREATE … IF NOT EXISTS` statements, run with the others at connect.
    var webhookTables: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(occupancy) (channel_key text NOT NULL, node_id text NOT NULL, sealed text NOT NULL, PRIMARY KEY (channel_key, node_id))",
            "CREATE INDEX IF NOT EXISTS \(occupancy)_node ON \(occupancy) (node_id)",
            "CREATE TABLE IF NOT EXISTS \(webhooks) (id bigserial PRIMARY KEY, target text NOT NULL, body text NOT NULL, queued_at timestamptz NOT NULL, origin_node text NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(webhooks)_target ON \(webhooks) (target, id)",
            "CREATE TABLE IF NOT EXISTS \(webhookTargets) (target text PRIMARY KEY, attempts integer NOT NULL DEFAULT 0, retry_at timestamptz, lease_node text, lease_until timestamptz)",
        ]
    }

    // MARK: - Occupancy (one transaction each, under an advisory lock per channel)

    /// Records that `node` has subscribers of the channel; true when no node had any before.
    func occupy(channelKey: String, sealed: String, node: String, on connection: BoundedConnection, logger: Logger) async throws -> Bool {
        try await transaction(on: connection, logger: logger) {
            try await lock(channelKey, on: connection, logger: logger)
            let before = try await count("SELECT count(*) FROM \(unescaped: occupancy) WHERE channel_key = \(channelKey)", on: connection, logger: logger)
            try await execute("""
                INSERT INTO \(unescaped: occupancy) (channel_key, node_id, sealed) VALUES (\(channelKey), \(node), \(sealed)) ON CONFLICT DO NOTHING
                """, on: connection, logger: logger)
            return before == 0
        }
    }

    /// Records that `node` has no subscriber of the channel left; true when no node has any now
    /// (and `node` had: a channel this node never held is not vacated by it).
    func vacate(channelKey: String, node: String, on connection: BoundedConnection, logger: Logger) async throws -> Bool {
        try await transaction(on: connection, logger: logger) {
            try await lock(channelKey, on: connection, logger: logger)
            let removed = try await count("""
                WITH gone AS (DELETE FROM \(unescaped: occupancy) WHERE channel_key = \(channelKey) AND node_id = \(node) RETURNING 1) SELECT count(*) FROM gone
                """, on: connection, logger: logger)
            let after = try await count("SELECT count(*) FROM \(unescaped: occupancy) WHERE channel_key = \(channelKey)", on: connection, logger: logger)
            return removed > 0 && after == 0
        }
    }

    /// Removes every row of `node` (a node that died, or this node resetting its own); returns
    /// the sealed channels it removed that no node holds any more. Nodes that forget the same
    /// node together remove each row once: only one of them reports a channel.
    func forgetOccupancy(of node: String, on connection: BoundedConnection, logger: Logger) async throws -> [String] {
        try await transaction(on: connection, logger: logger) {
            let keys = try await strings("SELECT channel_key FROM \(unescaped: occupancy) WHERE node_id = \(node) ORDER BY channel_key", on: connection, logger: logger)
            var vacated: [String] = []
            // Locks in one order (sorted), so that two nodes forgetting together cannot deadlock.
            for key in keys {
                try await lock(key, on: connection, logger: logger)
                let removed = try await strings("""
                    DELETE FROM \(unescaped: occupancy) WHERE channel_key = \(key) AND node_id = \(node) RETURNING sealed
                    """, on: connection, logger: logger)
                let after = try await count("SELECT count(*) FROM \(unescaped: occupancy) WHERE channel_key = \(key)", on: connection, logger: logger)
                if let sealed = removed.first, after == 0 { vacated.append(sealed) }
            }
            return vacated
        }
    }

    /// The nodes that hold occupancy rows.
    func occupyingNodes(on connection: BoundedConnection, logger: Logger) async throws -> Set<String> {
        Set(try await strings("SELECT DISTINCT node_id FROM \(unescaped: occupancy)", on: connection, logger: logger))
    }

    // MARK: - Webhook queue

    /// Appends sealed events (in order) queued by `node`; then drops the oldest events past
    /// `bounds` (each row counted by the length of its sealed body plus 128 bytes): first those
    /// of each app that is past its own bound, then those of the apps holding the most bytes
    /// while the whole queue is past the hub's. Returns the ids of the apps whose events were
    /// dropped, one per event.
    func enqueueWebhooks(
        _ rows: [(target: String, body: String, queuedAt: Date)], node: String, bounds: WebhookQueueBounds, on connection: BoundedConnection, logger: Logger
    ) async throws -> [String] {
        for target in Set(rows.map(\.target)).sorted() {
            try await execute("INSERT INTO \(unescaped: webhookTargets) (target) VALUES (\(target)) ON CONFLICT DO NOTHING", on: connection, logger: logger)
        }
        for row in rows {
            try await execute("""
                INSERT INTO \(unescaped: webhooks) (target, body, queued_at, origin_node) VALUES (\(row.target), \(row.body), \(row.queuedAt), \(node))
                """, on: connection, logger: logger)
        }
        var dropped: [String] = []
        let apps = Set(rows.compactMap { WebhookTargetID($0.target)?.appID }).sorted()
        for app in apps {
            let prefix = app + "#"
            dropped += try await strings("""
                DELETE FROM \(unescaped: webhooks) WHERE id IN (
                    SELECT id FROM (
                        SELECT id, row_number() OVER (ORDER BY id DESC) AS newer, sum(length(body) + 128) OVER (ORDER BY id DESC) AS held
                        FROM \(unescaped: webhooks) WHERE starts_with(target, \(prefix))
                    ) ranked WHERE newer > \(bounds.maxEventsPerApp) OR held > \(bounds.maxBytesPerApp)
                ) RETURNING target
                """, on: connection, logger: logger)
        }
        // The whole queue: the newest events are kept within the bounds, the apps' oldest go.
        dropped += try await strings("""
            DELETE FROM \(unescaped: webhooks) WHERE id IN (
                SELECT id FROM (
                    SELECT id, row_number() OVER (ORDER BY id DESC) AS newer, sum(length(body) + 128) OVER (ORDER BY id DESC) AS held
                    FROM \(unescaped: webhooks)
                ) ranked WHERE newer > \(bounds.maxEvents) OR held > \(bounds.maxBytes)
            ) RETURNING target
            """, on: connection, logger: logger)
        return dropped.map { WebhookTargetID($0)?.appID ?? "" }
    }

    /// Leases to `node`, for `lease`, every target that is due (not leased, no retry pending,
    /// and an event that waited `window`, or any event when `flushing` or retrying); returns
    /// them with their failed attempts.
    func claimTargets(node: String, window: Duration, flushing: Bool, lease: Duration, on connection: BoundedConnection, logger: Logger) async throws -> [(target: String, attempts: Int)] {
        let query: PostgresQuery = """
            UPDATE \(unescaped: webhookTargets) AS t SET lease_node = \(node), lease_until = now() + make_interval(secs => \(Self.seconds(lease)))
            FROM (
                SELECT target FROM \(unescaped: webhookTargets) d
                WHERE (d.lease_until IS NULL OR d.lease_until < now()) AND (d.retry_at IS NULL OR d.retry_at <= now())
                AND EXISTS (SELECT 1 FROM \(unescaped: webhooks) w WHERE w.target = d.target
                    AND (\(flushing) OR d.attempts > 0 OR w.queued_at <= now() - make_interval(secs => \(Self.seconds(window)))))
                FOR UPDATE SKIP LOCKED
            ) AS due
            WHERE t.target = due.target
            RETURNING t.target, t.attempts
            """
        return try await connection.run {
            var claimed: [(target: String, attempts: Int)] = []
            for try await (target, attempts) in try await connection.connection.query(query, logger: logger).decode((String, Int32).self) {
                claimed.append((target, Int(attempts)))
            }
            return claimed
        }
    }

    /// The oldest `limit` events of `target`, in order.
    func headWebhooks(target: String, limit: Int, on connection: BoundedConnection, logger: Logger) async throws -> [(id: Int64, body: String, queuedAt: Date)] {
        let query: PostgresQuery = "SELECT id, body, queued_at FROM \(unescaped: webhooks) WHERE target = \(target) ORDER BY id LIMIT \(limit)"
        return try await connection.run {
            var rows: [(id: Int64, body: String, queuedAt: Date)] = []
            for try await (id, body, queuedAt) in try await connection.connection.query(query, logger: logger).decode((Int64, String, Date).self) {
                rows.append((id, body, queuedAt))
            }
            return rows
        }
    }

    /// Removes delivered (or dropped) events and frees the target for the next batch.
    func finishWebhooks(ids: [Int64], target: String, node: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("DELETE FROM \(unescaped: webhooks) WHERE id = ANY(\(ids))", on: connection, logger: logger)
        try await execute("""
            UPDATE \(unescaped: webhookTargets) SET attempts = 0, retry_at = NULL, lease_node = NULL, lease_until = NULL WHERE target = \(target) AND lease_node = \(node)
            """, on: connection, logger: logger)
    }

    /// Frees the target until `retryAt`, with `attempts` failed attempts.
    func rescheduleWebhooks(target: String, node: String, attempts: Int, retryAt: Date, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("""
            UPDATE \(unescaped: webhookTargets) SET attempts = \(Int32(clamping: attempts)), retry_at = \(retryAt), lease_node = NULL, lease_until = NULL
            WHERE target = \(target) AND lease_node = \(node)
            """, on: connection, logger: logger)
    }

    /// Events `node` queued that are not delivered yet.
    func pendingWebhooks(queuedBy node: String, on connection: BoundedConnection, logger: Logger) async throws -> Int {
        try await count("SELECT count(*) FROM \(unescaped: webhooks) WHERE origin_node = \(node)", on: connection, logger: logger)
    }

    // MARK: - Helpers

    private func lock(_ key: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", on: connection, logger: logger)
    }

    func count(_ query: PostgresQuery, on connection: BoundedConnection, logger: Logger) async throws -> Int {
        try await connection.run {
            var value: Int64 = 0
            for try await (count) in try await connection.connection.query(query, logger: logger).decode(Int64.self) { value = count }
            return Int(value)
        }
    }

    /// Runs `work` between `BEGIN` and `COMMIT` (`ROLLBACK` when it throws).
    func transaction<T: Sendable>(on connection: BoundedConnection, logger: Logger, _ work: () async throws -> T) async throws -> T {
        try await execute("BEGIN", on: connection, logger: logger)
        do {
            let value = try await work()
            try await execute("COMMIT", on: connection, logger: logger)
            return value
        } catch {
            try? await execute("ROLLBACK", on: connection, logger: logger)
            throw error
        }
    }
}
