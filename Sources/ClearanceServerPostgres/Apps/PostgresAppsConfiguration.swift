import Clearance
import PostgresNIO

/// Where the apps are kept (`clearance serve --apps-database`, `clearance apps --database`): a
/// PostgreSQL database, the backplane's or another one, and the key their secrets are sealed with.
///
/// ```swift
/// let apps = try PostgresAppsConfiguration(
///     url: "postgres://clearance@db.internal:5432/clearance?sslmode=require",
///     key: PostgresAppsKey(secret: appsKeySecret))
/// ```
public struct PostgresAppsConfiguration: Sendable, SecretRedacting {
    /// The database: host, port, user, password, database name, TLS.
    public var connection: PostgresConnection.Configuration
    /// The key the secrets are sealed with; nil for the commands that read no secret (`list`,
    /// `disable`, `enable`, `remove`).
    public var key: PostgresAppsKey?
    /// The prefix of the tables (`<namespace>_apps`, `<namespace>_schema`): the backplane's by
    /// default, so that one schema version covers both when they share a database.
    public var namespace: String

    /// A configuration from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, with the
    /// optional query items `sslmode` (`disable`, the default, or `require`) and `namespace`
    /// (default `clearance_backplane`).
    /// - Throws: ``PostgresAppsError/invalidURL(reason:)``.
    public init(url text: String, key: PostgresAppsKey?) throws(PostgresAppsError) {
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw .invalidURL(reason: error.reason)
        }
        if let (name, _) = url.items.first { throw .invalidURL(reason: "unknown query item \(name) (sslmode and namespace are known).") }
        guard PostgresURL.isNamespace(url.namespace) else {
            throw .invalidURL(reason: "the namespace must be 1 to 40 lower-case letters, digits or _, starting with a letter.")
        }
        self.init(connection: url.connection, key: key, namespace: url.namespace)
    }

    /// A configuration from its parts (`namespace` as ``PostgresBackplaneConfiguration/namespace``).
    public init(connection: PostgresConnection.Configuration, key: PostgresAppsKey?, namespace: String = "clearance_backplane") {
        self.connection = connection
        self.key = key
        self.namespace = namespace
    }

    /// `postgres://USER@HOST:PORT/DATABASE (namespace …)`: never the password or the key.
    public var description: String {
        PostgresURL.describe(connection, namespace: namespace)
    }
}
