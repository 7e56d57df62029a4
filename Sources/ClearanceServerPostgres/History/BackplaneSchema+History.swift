import PostgresNIO

/// The cluster's channel histories (connection recovery): a row per channel naming its stream
/// and last serial, and a row per kept event. Apps and channels are named by their HMAC under
/// the cluster key, events stored sealed: a database role without the key reads neither.
extension BackplaneSchema {
    var historyStreams: String { "\(channel)_history_streams" }
    var historyEvents: String { "\(channel)_history_events" }

    /// The `CREATE … IF NOT EXISTS` statements, run with the others at connect.
    var historyTables: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(historyStreams) (app_key text NOT NULL, channel_key text NOT NULL, stream text NOT NULL, \
            last_serial bigint NOT NULL, touched_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (app_key, channel_key))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(historyEvents) (app_key text NOT NULL, channel_key text NOT NULL, stream text NOT NULL, \
            serial bigint NOT NULL, sealed text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (channel_key, stream, serial))
            """,
            "CREATE INDEX IF NOT EXISTS \(historyEvents)_age ON \(historyEvents) (app_key, created_at)",
        ]
    }

    /// Keeps an event as the channel's next, in one statement (so committed when it returns):
    /// the channel's serial goes one up (its stream made, named `newStream`, when it has none),
    /// the event is stored under it, and the channel's events beyond the last `size` go.
    func appendHistory(
        appKey: String, channelKey: String, newStream: String, sealed: String, size: Int, on connection: BoundedConnection, logger: Logger
    ) async throws -> (stream: String, serial: Int64) {
        let query: PostgresQuery = """
            WITH s AS (
              INSERT INTO \(unescaped: historyStreams) AS t (app_key, channel_key, stream, last_serial) VALUES (\(appKey), \(channelKey), \(newStream), 1)
              ON CONFLICT (app_key, channel_key) DO UPDATE SET last_serial = t.last_serial + 1, touched_at = now()
              RETURNING t.stream, t.last_serial
            ), kept AS (
              INSERT INTO \(unescaped: historyEvents) (app_key, channel_key, stream, serial, sealed) SELECT \(appKey), \(channelKey), s.stream, s.last_serial, \(sealed) FROM s
            ), trimmed AS (
              DELETE FROM \(unescaped: historyEvents) e USING s
              WHERE e.channel_key = \(channelKey) AND (e.stream <> s.stream OR e.serial <= s.last_serial - \(Int64(size)))
            )
            SELECT stream, last_serial FROM s
            """
        return try await position(query, on: connection, logger: logger)
    }

    /// The channel's stream and last serial (its stream made, named `newStream`, at 0 when it
    /// has none).
    func historyPosition(
        appKey: String, channelKey: String, newStream: String, on connection: BoundedConnection, logger: Logger
    ) async throws -> (stream: String, serial: Int64) {
        let query: PostgresQuery = """
            WITH made AS (
              INSERT INTO \(unescaped: historyStreams) (app_key, channel_key, stream, last_serial) VALUES (\(appKey), \(channelKey), \(newStream), 0)
              ON CONFLICT (app_key, channel_key) DO NOTHING RETURNING stream, last_serial
            )
            SELECT stream, last_serial FROM made
            UNION ALL SELECT stream, last_serial FROM \(unescaped: historyStreams) WHERE app_key = \(appKey) AND channel_key = \(channelKey)
            """
        return try await position(query, on: connection, logger: logger)
    }

    /// The first row of `query`'s stream and serial.
    private func position(_ query: PostgresQuery, on connection: BoundedConnection, logger: Logger) async throws -> (stream: String, serial: Int64) {
        try await connection.run {
            var rows: [(String, Int64)] = []
            for try await row in try await connection.connection.query(query, logger: logger).decode((String, Int64).self) { rows.append(row) }
            guard let row = rows.first else { throw NoRowReturned() }
            return (row.0, row.1)
        }
    }

    /// The channel's events of `stream` after `serial` up to `last`, younger than `ttl`, in order.
    func historyEvents(
        channelKey: String, stream: String, after serial: Int64, upTo last: Int64, ttl: Double, on connection: BoundedConnection, logger: Logger
    ) async throws -> [(serial: Int64, sealed: String)] {
        let query: PostgresQuery = """
            SELECT serial, sealed FROM \(unescaped: historyEvents)
            WHERE channel_key = \(channelKey) AND stream = \(stream) AND serial > \(serial) AND serial <= \(last)
              AND created_at > now() - make_interval(secs => \(ttl))
            ORDER BY serial
            """
        return try await connection.run {
            var rows: [(serial: Int64, sealed: String)] = []
            for try await (serial, sealed) in try await connection.connection.query(query, logger: logger).decode((Int64, String).self) {
                rows.append((serial, sealed))
            }
            return rows
        }
    }

    /// Keeps the channels a node has subscribers of from going idle; returns their streams and
    /// last serials, by channel key.
    func touchHistory(
        appKey: String, channelKeys: [String], on connection: BoundedConnection, logger: Logger
    ) async throws -> [String: (stream: String, serial: Int64)] {
        guard !channelKeys.isEmpty else { return [:] }
        let query: PostgresQuery = """
            UPDATE \(unescaped: historyStreams) SET touched_at = now() WHERE app_key = \(appKey) AND channel_key = ANY(\(channelKeys))
            RETURNING channel_key, stream, last_serial
            """
        return try await connection.run {
            var rows: [String: (stream: String, serial: Int64)] = [:]
            for try await (key, stream, serial) in try await connection.connection.query(query, logger: logger).decode((String, String, Int64).self) {
                rows[key] = (stream, serial)
            }
            return rows
        }
    }

    /// Drops an app's events older than `ttl`, and its streams without an event that nobody
    /// touched for `idle` seconds; then its oldest events while they hold more than `maxBytes`.
    func purgeHistory(appKey: String, ttl: Double, idle: Double, maxBytes: Int, on connection: BoundedConnection, logger: Logger) async throws {
        try await execute("""
            DELETE FROM \(unescaped: historyEvents) WHERE app_key = \(appKey) AND created_at < now() - make_interval(secs => \(ttl))
            """, on: connection, logger: logger)
        try await execute("""
            DELETE FROM \(unescaped: historyStreams) s WHERE s.app_key = \(appKey) AND s.touched_at < now() - make_interval(secs => \(idle))
              AND NOT EXISTS (SELECT 1 FROM \(unescaped: historyEvents) e WHERE e.channel_key = s.channel_key AND e.stream = s.stream)
            """, on: connection, logger: logger)
        for _ in 0..<100 {
            let bytes = try await count("""
                SELECT coalesce(sum(octet_length(sealed)), 0)::bigint FROM \(unescaped: historyEvents) WHERE app_key = \(appKey)
                """, on: connection, logger: logger)
            guard bytes > maxBytes else { return }
            try await execute("""
                DELETE FROM \(unescaped: historyEvents) WHERE ctid IN (
                  SELECT ctid FROM \(unescaped: historyEvents) WHERE app_key = \(appKey) ORDER BY created_at, serial LIMIT 1000)
                """, on: connection, logger: logger)
        }
    }
}
