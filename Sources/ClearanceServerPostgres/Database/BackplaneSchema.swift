import PostgresNIO

/// The backplane's SQL: the table of live nodes (heartbeats), the table of payloads too long
/// for a notification, the cluster's webhook tables (occupancy per node, queued webhooks and
/// their targets' leases: ``BackplaneSchema+Webhooks.swift``), and the statements that use
/// them. Names derive from the namespace,
/// which ``PostgresBackplaneConfiguration/validate()`` restricts to `[a-z][a-z0-9_]*`.
struct BackplaneSchema: Sendable {
    /// An `INSERT … RETURNING` that returned nothing.
    struct NoRowReturned: Error, CustomStringConvertible {
        var description: String { "the database stored the payload but returned no id" }
    }

    let channel: String
    let nodes: String
    let payloads: String
    let occupancy: String
    let webhooks: String
    let webhookTargets: String
    let terminations: String

    init(namespace: String) {
        channel = namespace
        nodes = "\(namespace)_nodes"
        payloads = "\(namespace)_payloads"
        occupancy = "\(namespace)_occupancy"
        webhooks = "\(namespace)_webhooks"
        webhookTargets = "\(namespace)_webhook_targets"
        terminations = "\(namespace)_terminations"
    }

    /// The backplane's versions, in order (``migrate(_:steps:on:logger:)``): version 1 is every
    /// table of the first release that recorded a version (`IF NOT EXISTS`: a database made
    /// before versions were recorded is found at 0 and brought to 1 without a change).
    var backplaneSteps: [[String]] {
        [[
            "CREATE TABLE IF NOT EXISTS \(nodes) (node_id text PRIMARY KEY, seen_at timestamptz NOT NULL DEFAULT now())",
            "CREATE TABLE IF NOT EXISTS \(payloads) (id bigserial PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
        ] + webhookTables + terminationTables + historyTables + outboxTables]
    }

    /// Creates or migrates the tables (``backplaneSteps``) and the outbox's function. Nodes
    /// starting together take turns; a passing failure is tried again twice.
    /// - Throws: ``NewerSchema`` at once (a newer Clearance made the tables), or the last failure.
    func create(on connection: BoundedConnection, logger: Logger) async throws {
        var lastError: (any Error)?
        for _ in 0..<3 {
            do {
                try await migrate("backplane", steps: backplaneSteps, on: connection, logger: logger)
                try await createOutboxFunction(on: connection, logger: logger)
                return
            } catch let error as NewerSchema {
                throw error
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        if let lastError { throw lastError }
    }

    /// Records that `node` is alive now (the database's clock, so nodes' clocks need not agree).
    func heartbeat(node: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("""
            INSERT INTO \(unescaped: nodes) (node_id, seen_at) VALUES (\(node), now()) ON CONFLICT (node_id) DO UPDATE SET seen_at = now()
            """, on: connection, logger: logger)
    }

    /// The nodes that recorded a heartbeat within `window`.
    func liveNodes(within window: Duration, on connection: BoundedConnection, logger: Logger) async throws -> Set<String> {
        let query: PostgresQuery = """
            SELECT node_id FROM \(unescaped: nodes) WHERE seen_at > now() - make_interval(secs => \(Self.seconds(window)))
            """
        return Set(try await strings(query, on: connection, logger: logger))
    }

    /// Forgets nodes silent for an hour and stored payloads older than five minutes (every node
    /// has read them by then, or has lost its link and synchronizes again anyway).
    func collectGarbage(on connection: BoundedConnection, logger: Logger) async throws {
        try await execute(PostgresQuery(unsafeSQL: "DELETE FROM \(nodes) WHERE seen_at < now() - interval '1 hour'"), on: connection, logger: logger)
        try await execute(PostgresQuery(unsafeSQL: "DELETE FROM \(payloads) WHERE created_at < now() - interval '5 minutes'"), on: connection, logger: logger)
    }

    /// `node` leaves: its heartbeat row goes.
    func remove(node: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("DELETE FROM \(unescaped: nodes) WHERE node_id = \(node)", on: connection, logger: logger)
    }

    /// Notifies every listening node of `text` (a sealed notification).
    func notify(_ text: String, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("SELECT pg_notify(\(channel), \(text))", on: connection, logger: logger)
    }

    /// Stores `body` (a sealed payload too long for a notification) and returns its row's id;
    /// committed when this returns, before the notification that points at it is sent.
    func store(_ body: String, on connection: BoundedConnection, logger: Logger) async throws -> Int64 {
        try await connection.run {
            var ids: [Int64] = []
            let query: PostgresQuery = "INSERT INTO \(unescaped: payloads) (body) VALUES (\(body)) RETURNING id"
            for try await (id) in try await connection.connection.query(query, logger: logger).decode(Int64.self) { ids.append(id) }
            guard let id = ids.first else { throw NoRowReturned() }
            return id
        }
    }

    /// The stored payload `id`, if it is still there.
    func storedPayload(id: Int64, on connection: BoundedConnection, logger: Logger) async throws -> String? {
        try await strings("SELECT body FROM \(unescaped: payloads) WHERE id = \(id)", on: connection, logger: logger).first
    }

    /// Runs `query`, its rows read and dropped (see ``BoundedConnection``).
    func execute(_ query: PostgresQuery, on connection: BoundedConnection, logger: Logger) async throws {
        try await connection.run {
            for try await _ in try await connection.connection.query(query, logger: logger) {}
        }
    }

    /// Runs `query` and returns its rows' one text column (see ``BoundedConnection``).
    func strings(_ query: PostgresQuery, on connection: BoundedConnection, logger: Logger) async throws -> [String] {
        try await connection.run {
            var values: [String] = []
            for try await (value) in try await connection.connection.query(query, logger: logger).decode(String.self) { values.append(value) }
            return values
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
