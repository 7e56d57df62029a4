import Logging
import PostgresNIO

/// One database connection for work beside the link (the webhook queue, the occupancy
/// transactions), opened when first needed and opened again after it is lost. The tables are
/// made (if missing) on each new connection.
actor BackplaneConnection {
    private let configuration: PostgresBackplaneConfiguration
    private let schema: BackplaneSchema
    private let logger: Logger
    private let id: Int
    private var current: BoundedConnection?
    private var opening: Task<BoundedConnection, any Error>?

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
        let connection = try await task.value
        current = connection
        return connection
    }

    /// Closes the connection.
    func close() async {
        try? await current?.close()
        current = nil
    }
}
