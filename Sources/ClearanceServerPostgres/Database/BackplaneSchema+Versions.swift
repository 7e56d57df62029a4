import PostgresNIO

/// The schema's versions: one row per part (`backplane`, `apps`) in `<namespace>_schema`. Each
/// part is created and migrated by the hub (and `clearance apps`) in one transaction, under an
/// advisory lock, so that hubs starting together on an empty database take turns: the first
/// creates, the others find it made. A hub that finds a part newer than it knows refuses it.
extension BackplaneSchema {
    /// A newer Clearance migrated the part: this one must not touch it.
    struct NewerSchema: Error, CustomStringConvertible {
        let part: String
        let found: Int
        let known: Int

        var description: String {
            "the database holds the \(part) schema at version \(found), newer than this Clearance knows (\(known))"
        }
    }

    var schemaVersions: String { "\(channel)_schema" }

    /// Brings `part` to the last version of `steps` (version `n` is `steps[n - 1]`, run in order
    /// from the one after the version found; a part never recorded is at 0).
    /// - Throws: ``NewerSchema`` when the database's version is newer, or the database's error.
    func migrate(_ part: String, steps: [[String]], on connection: BoundedConnection, logger: Logger) async throws {
        try await transaction(on: connection, logger: logger) {
            try await execute("SELECT pg_advisory_xact_lock(hashtextextended(\(schemaVersions), 0))", on: connection, logger: logger)
            try await execute(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(schemaVersions) (part text PRIMARY KEY, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())
                """), on: connection, logger: logger)
            let found = try await count("SELECT coalesce(max(version), 0)::bigint FROM \(unescaped: schemaVersions) WHERE part = \(part)", on: connection, logger: logger)
            guard found <= steps.count else { throw NewerSchema(part: part, found: found, known: steps.count) }
            guard found < steps.count else { return }
            for statement in steps[found...].joined() {
                try await execute(PostgresQuery(unsafeSQL: statement), on: connection, logger: logger)
            }
            try await execute("""
                INSERT INTO \(unescaped: schemaVersions) (part, version) VALUES (\(part), \(steps.count))
                ON CONFLICT (part) DO UPDATE SET version = excluded.version, migrated_at = now()
                """, on: connection, logger: logger)
            logger.notice("backplane.schema.migrated", metadata: ["part": "\(part)", "from": "\(found)", "to": "\(steps.count)"])
        }
    }
}
