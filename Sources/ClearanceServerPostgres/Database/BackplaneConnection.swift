import Logging
import PostgresNIO

/// One database connection for work beside the link (the webhook queue, the occupancy
/// transactions), opened when first needed and opened again after it is lost. The tables are
/// made (if missing) on each new connection. Once ``close()`` is called it opens none any more,
/// and one that was opening when it was called is closed as soon as it is open.
actor BackplaneConnection {
    /// Work asked for after ``close()``.
    struct Closed: Error {}

    private let configuration: PostgresBackplaneConfiguration
    private let schema: BackplaneSchema
    private let logger: Logger
    private let id: Int
    private var current: BoundedConnection?
    private var opening: Task<BoundedConnection, any Error>?
    private var closed = false

    init(configuration: PostgresBackplaneConfiguration, id: Int, logger: Logger) {
        self.configuration = configuration
        schema = BackplaneSchema(namespace: configuration.namespace)
        self.id = id
        self.logger = logger
    }

    /// Runs `work` on the connection; a connection that closed is replaced on the next call.
    func run<T: Sendable>(_ work: @Sendable (BackplaneSchema, BoundedConnection) async throws -> T) async throws -> T {
        try await work(schema, try await connection())
    }

    /// The open connection, or a new one (callers that come while it opens wait for it).
    private func connection() async throws -> BoundedConnection {
        guard !closed else { throw Closed() }
        if let current, !current.connection.isClosed { return current }
        if let opening { return try await opening.value }
        let (configuration, schema, id, logger) = (configuration, schema, id, logger)
        let task = Task {
            let connection = BoundedConnection(try await PostgresConnection.connect(configuration: configuration.connection, id: id, logger: logger))
            do {
                try await schema.create(on: connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            return connection
        }
        opening = task
        defer { opening = nil }
        let connection: BoundedConnection
        do {
            connection = try await task.value
        } catch {
            // Its owner closed it while it opened: that, not how the opening ended (a loaded
            // machine's connect timeout, a refused login), is what the caller must hear.
            if closed { throw Closed() }
            throw error
        }
        guard !closed else {
            // Closed while it opened: nobody would close it later.
            try? await connection.close()
            throw Closed()
        }
        current = connection
        return connection
    }

    /// Waits until `isDrained` holds (what its owner queued is written), at most `timeout`, then
    /// calls `stopping` and closes the connection: how a worker on it stops.
    nonisolated func close(
        whenDrained isDrained: @Sendable () -> Bool, within timeout: Duration, stopping: @Sendable () -> Void
    ) async {
        let deadline = ContinuousClock.now + timeout
        while !isDrained(), ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        stopping()
        await close()
    }

    /// Whether a connection is opening now (for tests).
    var isOpening: Bool { opening != nil }

    /// Whether ``close()`` was called (for tests).
    var isClosed: Bool { closed }

    /// Closes the connection, and one that is opening once it is open; opens none any more.
    func close() async {
        closed = true
        try? await current?.close()
        current = nil
        if let opening, let connection = try? await opening.value { try? await connection.close() }
    }
}
