import Foundation
import PostgresNIO

/// The cluster's terminations (`terminate_connections`) as rows, not messages: a row stays until
/// its grace period is over, so every node applies it, also one that was away from the database
/// when it was written, or whose message queue was full.
extension BackplaneSchema {
    /// The `CREATE … IF NOT EXISTS` statements, run with the others at connect.
    var terminationTables: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(terminations) (id bigserial PRIMARY KEY, sealed text NOT NULL, until timestamptz NOT NULL)",
        ]
    }

    /// Records a sealed termination, in force for `seconds` from the database's now.
    func recordTermination(sealed: String, seconds: Double, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("""
            INSERT INTO \(unescaped: terminations) (sealed, until) VALUES (\(sealed), now() + make_interval(secs => \(seconds)))
            """, on: connection, logger: logger)
    }

    /// The terminations still in force written after `id`, in order.
    func terminations(after id: Int64, on connection: BoundedConnection, logger: Logger) async throws -> [(id: Int64, sealed: String)] {
        let query: PostgresQuery = "SELECT id, sealed FROM \(unescaped: terminations) WHERE id > \(id) AND until > now() ORDER BY id"
        return try await connection.run {
            var rows: [(id: Int64, sealed: String)] = []
            for try await (id, sealed) in try await connection.connection.query(query, logger: logger).decode((Int64, String).self) {
                rows.append((id, sealed))
            }
            return rows
        }
    }

    /// Removes the terminations whose grace period ended more than a minute ago.
    func forgetEndedTerminations(on connection: BoundedConnection, logger: Logger) async throws {
        try await execute(PostgresQuery(unsafeSQL: "DELETE FROM \(terminations) WHERE until < now() - interval '1 minute'"), on: connection, logger: logger)
    }
}
