import PostgresNIO

/// The outbox: `clearance_publish(app_id, channels, event, data[, socket_id])`, which an app calls
/// inside its own transaction, writes a row that the cluster delivers once the transaction
/// commits (and never when it rolls back). The function runs as the hub's role
/// (`SECURITY DEFINER`) and is revoked from PUBLIC: `GRANT EXECUTE` on it is all an app's role
/// needs to publish, and it reads no table.
extension BackplaneSchema {
    var outbox: String { "\(channel)_outbox" }
    var outboxRejected: String { "\(channel)_outbox_rejected" }
    /// The notification a commit sends (transactional: none for a rollback).
    var outboxNotification: String { "\(channel)_outbox" }

    /// The `CREATE … IF NOT EXISTS` statements, run with the others at connect.
    var outboxTables: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(outbox) (id bigserial PRIMARY KEY, app_id text NOT NULL, channels text[] NOT NULL, \
            event text NOT NULL, data text NOT NULL, socket_id text, committed_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS \(outboxRejected) (id bigint PRIMARY KEY, app_id text NOT NULL, channels text[] NOT NULL, \
            event text NOT NULL, data text NOT NULL, socket_id text, reason text NOT NULL, rejected_at timestamptz NOT NULL DEFAULT now())
            """,
        ]
    }

    /// Creates (or replaces) `clearance_publish` in the schema the tables are in, its search path
    /// pinned there, and revokes it from PUBLIC.
    ///
    /// Each channel's publishers take turns until they commit (an advisory lock per channel, in
    /// name order, so two cannot deadlock): a channel's rows are numbered in commit order, the
    /// order the hub delivers them in.
    func createOutboxFunction(on connection: BoundedConnection, logger: Logger) async throws {
        guard let schemaName = try await strings("SELECT current_schema()::text", on: connection, logger: logger).first else {
            throw NoRowReturned()
        }
        let quoted = "\"" + schemaName.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        // Made once, by one connection at a time (two at once: "tuple concurrently updated"), and
        // never again while it is this version: an operator's GRANT on it never races a
        // connection that opens.
        try await transaction(on: connection, logger: logger) {
            try await execute("SELECT pg_advisory_xact_lock(hashtextextended(\(outbox + " function"), 0))", on: connection, logger: logger)
            let marker = "%" + outboxFunctionVersion + "%"
            let current = try await count("""
                SELECT count(*) FROM pg_proc WHERE proname = 'clearance_publish' AND pronamespace = current_schema()::regnamespace
                  AND prosrc LIKE \(marker)
                """, on: connection, logger: logger)
            guard current == 0 else { return }
            try await replaceOutboxFunction(schema: quoted, on: connection, logger: logger)
        }
    }

    /// Written in the function's body: a hub finds the function of its version made already.
    private var outboxFunctionVersion: String { "clearance outbox v1 \(outbox)" }

    private func replaceOutboxFunction(schema quoted: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute(PostgresQuery(unsafeSQL: """
            CREATE OR REPLACE FUNCTION clearance_publish(app_id text, channels text[], event text, data text, socket_id text DEFAULT NULL)
            RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = \(quoted), pg_temp AS $clearance$
            -- \(outboxFunctionVersion)
            DECLARE
              locked text;
              new_id bigint;
            BEGIN
              IF app_id IS NULL OR channels IS NULL OR event IS NULL OR data IS NULL THEN
                RAISE EXCEPTION 'clearance_publish: app_id, channels, event and data are required';
              END IF;
              FOR locked IN SELECT DISTINCT c FROM unnest(channels) AS c ORDER BY c LOOP
                PERFORM pg_advisory_xact_lock(hashtextextended('\(outbox) ' || app_id || ' ' || locked, 0));
              END LOOP;
              INSERT INTO \(outbox) (app_id, channels, event, data, socket_id) VALUES (app_id, channels, event, data, socket_id)
                RETURNING id INTO new_id;
              PERFORM pg_notify('\(outboxNotification)', '');
              RETURN new_id;
            END
            $clearance$
            """), on: connection, logger: logger)
        try await execute(PostgresQuery(unsafeSQL: "REVOKE ALL ON FUNCTION clearance_publish(text, text[], text, text, text) FROM PUBLIC"),
                          on: connection, logger: logger)
    }

    /// Whether this connection is the cluster's one drainer of the outbox: it takes the role
    /// when no other connection holds it (a session-level advisory lock), and keeps it until its
    /// session ends. One node delivering every outbox event keeps each channel's order at every
    /// subscriber (events triggered on two nodes could cross between them).
    func holdsOutboxTurn(on connection: BoundedConnection, logger: Logger) async throws -> Bool {
        let query: PostgresQuery = """
            WITH k AS (SELECT hashtextextended(\(outbox), 0) AS key)
            SELECT CASE WHEN EXISTS (
                SELECT 1 FROM pg_locks, k WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND objsubid = 1
                  AND classid = ((key >> 32) & 4294967295)::bigint::oid AND objid = (key & 4294967295)::bigint::oid)
              THEN true ELSE pg_try_advisory_lock((SELECT key FROM k)) END
            """
        return try await connection.run {
            var held = false
            for try await (value) in try await connection.connection.query(query, logger: logger).decode(Bool.self) { held = value }
            return held
        }
    }

    /// The first `limit` committed rows, in order.
    func outboxRows(limit: Int, on connection: BoundedConnection, logger: Logger) async throws
        -> [(id: Int64, appID: String, channels: [String], event: String, data: String, socketID: String?)]
    {
        let query: PostgresQuery = """
            SELECT id, app_id, channels, event, data, socket_id FROM \(unescaped: outbox) ORDER BY id LIMIT \(Int64(limit))
            """
        return try await connection.run {
            var rows: [(id: Int64, appID: String, channels: [String], event: String, data: String, socketID: String?)] = []
            let decoded = try await connection.connection.query(query, logger: logger).decode((Int64, String, [String], String, String, String?).self)
            for try await row in decoded { rows.append(row) }
            return rows
        }
    }

    /// Removes the rows `ids` (delivered, or set aside).
    func removeOutboxRows(_ ids: [Int64], on connection: BoundedConnection, logger: Logger) async throws {
        guard !ids.isEmpty else { return }
        try await execute("DELETE FROM \(unescaped: outbox) WHERE id = ANY(\(ids))", on: connection, logger: logger)
    }

    /// Sets row `id` aside with `reason`.
    func rejectOutboxRow(id: Int64, reason: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("""
            INSERT INTO \(unescaped: outboxRejected) (id, app_id, channels, event, data, socket_id, reason)
            SELECT id, app_id, channels, event, data, socket_id, \(reason) FROM \(unescaped: outbox) WHERE id = \(id)
            ON CONFLICT (id) DO NOTHING
            """, on: connection, logger: logger)
    }

    /// Forgets the rows set aside more than a week ago.
    func forgetRejectedOutboxRows(on connection: BoundedConnection, logger: Logger) async throws {
        try await execute(PostgresQuery(unsafeSQL: "DELETE FROM \(outboxRejected) WHERE rejected_at < now() - interval '7 days'"),
                          on: connection, logger: logger)
    }
}
