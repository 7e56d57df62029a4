import Logging
import PostgresNIO

extension PostgresCluster {
    /// Creates or migrates the backplane's tables before a node starts (`clearance serve` calls
    /// it), so that a database whose schema a newer Clearance migrated stops the node at start,
    /// with a message that says so. A database that cannot be reached now is not an error: the
    /// node links when it can (and makes the tables then).
    /// - Throws: ``PostgresBackplaneError/newerSchema(found:known:)``.
    public static func prepareSchema(_ configuration: PostgresBackplaneConfiguration, logger: Logger) async throws(PostgresBackplaneError) {
        let schema = BackplaneSchema(namespace: configuration.namespace)
        let connection: BoundedConnection
        do {
            connection = BoundedConnection(try await PostgresConnection.connect(configuration: configuration.connection, id: 6, logger: logger))
        } catch {
            return
        }
        do {
            try await schema.create(on: connection, logger: logger)
        } catch let error as BackplaneSchema.NewerSchema {
            try? await connection.connection.close()
            throw .newerSchema(found: error.found, known: error.known)
        } catch {
            logger.debug("backplane.schema.deferred", metadata: ["reason": "\(BackplaneLink.describe(error))"])
        }
        try? await connection.connection.close()
    }
}
