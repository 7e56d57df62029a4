import PostgresNIO

/// The apps' SQL: `<namespace>_apps`, one row per app (``StoredApp``: its id and key, its
/// settings in JSON, its secrets sealed), and `<namespace>_apps_generation`, one number that a
/// trigger raises with every statement that changes the apps (a hand edit in `psql` too): hubs
/// read the apps again when it moved.
extension BackplaneSchema {
    var apps: String { "\(channel)_apps" }
    var appsGeneration: String { "\(channel)_apps_generation" }

    /// The apps' versions, in order (``migrate(_:steps:on:logger:)``).
    var appsSteps: [[String]] {
        [[
            """
            CREATE TABLE IF NOT EXISTS \(apps) (
              id text PRIMARY KEY CHECK (id <> ''), key text NOT NULL UNIQUE CHECK (key <> ''),
              settings jsonb NOT NULL DEFAULT '{}'::jsonb, sealed text NOT NULL, key_id text NOT NULL,
              updated_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE TABLE IF NOT EXISTS \(appsGeneration) (one boolean PRIMARY KEY DEFAULT true CHECK (one), generation bigint NOT NULL)",
            "INSERT INTO \(appsGeneration) (one, generation) VALUES (true, 0) ON CONFLICT DO NOTHING",
            """
            CREATE OR REPLACE FUNCTION \(apps)_changed() RETURNS trigger LANGUAGE plpgsql AS $clearance$
            BEGIN
              UPDATE \(appsGeneration) SET generation = generation + 1;
              RETURN NULL;
            END $clearance$
            """,
            """
            CREATE TRIGGER \(apps)_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(apps)
              FOR EACH STATEMENT EXECUTE FUNCTION \(apps)_changed()
            """,
            "REVOKE ALL ON \(apps), \(appsGeneration) FROM PUBLIC",
            "REVOKE ALL ON FUNCTION \(apps)_changed() FROM PUBLIC",
        ]]
    }

    /// The number the trigger raises with each change of the apps.
    func appsGeneration(on connection: BoundedConnection, logger: Logger) async throws -> Int {
        try await count("SELECT generation FROM \(unescaped: appsGeneration)", on: connection, logger: logger)
    }

    /// Every app's row, by id.
    func storedApps(on connection: BoundedConnection, logger: Logger) async throws -> [StoredApp] {
        try await storedApps("SELECT id, key, settings::text, sealed, key_id FROM \(unescaped: apps) ORDER BY id", on: connection, logger: logger)
    }

    /// The row of the app `id`, if there is one; `locking` it until the transaction ends (`FOR UPDATE`).
    func storedApp(id: String, locking: Bool = false, on connection: BoundedConnection, logger: Logger) async throws -> StoredApp? {
        let query: PostgresQuery = locking
            ? "SELECT id, key, settings::text, sealed, key_id FROM \(unescaped: apps) WHERE id = \(id) FOR UPDATE"
            : "SELECT id, key, settings::text, sealed, key_id FROM \(unescaped: apps) WHERE id = \(id)"
        return try await storedApps(query, on: connection, logger: logger).first
    }

    /// Adds `app`'s row.
    func insert(_ app: StoredApp, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("""
            INSERT INTO \(unescaped: apps) (id, key, settings, sealed, key_id)
            VALUES (\(app.id), \(app.key), \(app.settings)::jsonb, \(app.sealed), \(app.keyID))
            """, on: connection, logger: logger)
    }

    /// Replaces the row of `app.id`; false when there is none.
    func update(_ app: StoredApp, on connection: BoundedConnection, logger: Logger) async throws -> Bool {
        try await count("""
            WITH changed AS (
              UPDATE \(unescaped: apps) SET key = \(app.key), settings = \(app.settings)::jsonb, sealed = \(app.sealed), key_id = \(app.keyID),
                updated_at = now()
              WHERE id = \(app.id) RETURNING 1)
            SELECT count(*) FROM changed
            """, on: connection, logger: logger) == 1
    }

    /// Sets `enabled` in the settings of the app `id`; false when there is none.
    func setEnabled(_ enabled: Bool, id: String, on connection: BoundedConnection, logger: Logger) async throws -> Bool {
        try await count("""
            WITH changed AS (
              UPDATE \(unescaped: apps) SET settings = settings || jsonb_build_object('enabled', \(enabled)), updated_at = now()
              WHERE id = \(id) RETURNING 1)
            SELECT count(*) FROM changed
            """, on: connection, logger: logger) == 1
    }

    /// Removes the app `id`; false when there was none.
    func removeApp(id: String, on connection: BoundedConnection, logger: Logger) async throws -> Bool {
        try await count("WITH gone AS (DELETE FROM \(unescaped: apps) WHERE id = \(id) RETURNING 1) SELECT count(*) FROM gone", on: connection, logger: logger) == 1
    }

    private func storedApps(_ query: PostgresQuery, on connection: BoundedConnection, logger: Logger) async throws -> [StoredApp] {
        try await connection.run {
            var rows: [StoredApp] = []
            let decoded = try await connection.connection.query(query, logger: logger).decode((String, String, String, String, String).self)
            for try await (id, key, settings, sealed, keyID) in decoded {
                rows.append(StoredApp(id: id, key: key, settings: settings, sealed: sealed, keyID: keyID))
            }
            return rows
        }
    }
}
