import ClearanceServer
import Foundation
import Logging
import PostgresNIO

/// The apps kept in PostgreSQL, read and changed (what `clearance apps` does and what
/// `clearance serve --apps-database` reads). Opening it creates or migrates the schema; every
/// change raises the generation that hubs watch (``PostgresAppsWatcher``), so each running hub
/// applies it within its poll interval.
///
/// ```swift
/// let store = try await PostgresAppStore.open(configuration, logger: logger)
/// try await store.add(HubAppConfiguration(id: "app-1", key: "key-1", secret: HubConfiguration.randomSecret()))
/// await store.close()
/// ```
public final class PostgresAppStore: Sendable {
    /// An app's row as `clearance apps list` shows it: no secret.
    public struct Listing: Sendable, Hashable {
        /// The app id.
        public let id: String
        /// The app key.
        public let key: String
        /// Whether it is enabled (its settings' `enabled`; absent: true).
        public let enabled: Bool
        /// The id of the apps key its secrets were sealed with.
        public let keyID: String
    }

    /// The configuration it was opened with.
    public let configuration: PostgresAppsConfiguration
    private let connection: BoundedConnection
    private let schema: BackplaneSchema
    private let logger: Logger

    private init(configuration: PostgresAppsConfiguration, connection: BoundedConnection, logger: Logger) {
        self.configuration = configuration
        self.connection = connection
        schema = BackplaneSchema(namespace: configuration.namespace)
        self.logger = logger
    }

    /// Connects and creates or migrates the apps' tables.
    /// - Throws: ``PostgresAppsError/database(reason:)`` or ``PostgresAppsError/newerSchema(part:found:known:)``.
    public static func open(_ configuration: PostgresAppsConfiguration, logger: Logger) async throws(PostgresAppsError) -> PostgresAppStore {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration.connection, id: 7, logger: logger)
        } catch {
            throw .database(reason: "cannot connect to \(configuration): \(BackplaneLink.describe(error))")
        }
        let store = PostgresAppStore(configuration: configuration, connection: BoundedConnection(connection), logger: logger)
        do {
            try await store.schema.migrate("apps", steps: store.schema.appsSteps, on: store.connection, logger: logger)
        } catch {
            await store.close()
            throw Self.failure(error)
        }
        return store
    }

    /// Closes the connection.
    public func close() async {
        try? await connection.connection.close()
    }

    /// The number that every change of the apps raises.
    public func generation() async throws(PostgresAppsError) -> Int {
        try await attempt { try await schema.appsGeneration(on: connection, logger: logger) }
    }

    /// Every app, by id, without secrets.
    public func list() async throws(PostgresAppsError) -> [Listing] {
        try await attempt { try await schema.storedApps(on: connection, logger: logger) }.map { row in
            let settings = (try? JSONSerialization.jsonObject(with: Data(row.settings.utf8))) as? [String: Any]
            return Listing(id: row.id, key: row.key, enabled: settings?["enabled"] as? Bool ?? true, keyID: row.keyID)
        }
    }

    /// Every app, each opened and validated on its own under `limits`: a row that is not a valid
    /// app is its error, and takes no other app with it.
    public func apps(limits: HubLimits) async throws(PostgresAppsError) -> [(id: String, app: Result<HubAppConfiguration, PostgresAppsError>)] {
        let key = try appsKey()
        return try await attempt { try await schema.storedApps(on: connection, logger: logger) }.map { row in
            (row.id, Result { () throws(PostgresAppsError) in try row.app(openingWith: key, namespace: configuration.namespace, limits: limits) })
        }
    }

    /// The app `id`, opened and validated under `limits`.
    /// - Throws: ``PostgresAppsError/noSuchApp(_:)``, or the row's problem.
    public func app(id: String, limits: HubLimits = HubLimits()) async throws(PostgresAppsError) -> HubAppConfiguration {
        let key = try appsKey()
        guard let row = try await attempt({ try await schema.storedApp(id: id, on: connection, logger: logger) }) else { throw .noSuchApp(id) }
        return try row.app(openingWith: key, namespace: configuration.namespace, limits: limits)
    }

    /// Adds `app` (validated first, under `limits`).
    /// - Throws: ``PostgresAppsError/appExists(_:)``, ``PostgresAppsError/keyTaken(_:)``, ``PostgresAppsError/invalidApp(appID:reason:)``.
    public func add(_ app: HubAppConfiguration, limits: HubLimits = HubLimits()) async throws(PostgresAppsError) {
        let row = try seal(app, limits: limits)
        try await attempt(writing: app) { try await schema.insert(row, on: connection, logger: logger) }
    }

    /// Replaces the app of `app.id` with `app` (validated first, under `limits`).
    /// - Throws: ``PostgresAppsError/noSuchApp(_:)``, ``PostgresAppsError/keyTaken(_:)``, ``PostgresAppsError/invalidApp(appID:reason:)``.
    public func replace(_ app: HubAppConfiguration, limits: HubLimits = HubLimits()) async throws(PostgresAppsError) {
        let row = try seal(app, limits: limits)
        guard try await attempt(writing: app, { try await schema.update(row, on: connection, logger: logger) }) else { throw .noSuchApp(app.id) }
    }

    /// Changes the app `id` with `change`, which gets the app as it is: the row is locked from
    /// the read to the write (`SELECT … FOR UPDATE` in one transaction), so that two changes at
    /// once never lose one another's (a secret rotated while another command sets a limit stays
    /// rotated). The changed app is validated under `limits`; nothing is written when `change`
    /// or the validation throws.
    /// - Returns: the app as written.
    /// - Throws: ``PostgresAppsError/noSuchApp(_:)``, the row's problem, `change`'s error,
    ///   ``PostgresAppsError/keyTaken(_:)`` or ``PostgresAppsError/invalidApp(appID:reason:)``.
    @discardableResult
    public func change(
        id: String, limits: HubLimits = HubLimits(), _ change: (HubAppConfiguration) throws(PostgresAppsError) -> HubAppConfiguration
    ) async throws(PostgresAppsError) -> HubAppConfiguration {
        let key = try appsKey()
        var failure: PostgresAppsError?
        do {
            return try await schema.transaction(on: connection, logger: logger) {
                do {
                    guard let row = try await schema.storedApp(id: id, locking: true, on: connection, logger: logger) else { throw PostgresAppsError.noSuchApp(id) }
                    let changed = try change(try row.app(openingWith: key, namespace: configuration.namespace, limits: limits))
                    guard changed.id == id else { throw PostgresAppsError.malformedSettings(appID: id, reason: "they change the app's id, which cannot change") }
                    let sealed = try seal(changed, limits: limits)
                    do {
                        _ = try await schema.update(sealed, on: connection, logger: logger)
                    } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                        throw PostgresAppsError.keyTaken(changed.key)
                    }
                    return changed
                } catch let error as PostgresAppsError {
                    failure = error
                    throw error
                }
            }
        } catch {
            throw failure ?? Self.failure(error)
        }
    }

    /// Enables or disables the app `id` (its connections are closed with 4003 when disabled).
    /// - Throws: ``PostgresAppsError/noSuchApp(_:)``.
    public func setEnabled(_ enabled: Bool, id: String) async throws(PostgresAppsError) {
        guard try await attempt({ try await schema.setEnabled(enabled, id: id, on: connection, logger: logger) }) else { throw .noSuchApp(id) }
    }

    /// Removes the app `id` (its connections are closed with 4001).
    /// - Throws: ``PostgresAppsError/noSuchApp(_:)``.
    public func remove(id: String) async throws(PostgresAppsError) {
        guard try await attempt({ try await schema.removeApp(id: id, on: connection, logger: logger) }) else { throw .noSuchApp(id) }
    }

    private func appsKey() throws(PostgresAppsError) -> PostgresAppsKey {
        guard let key = configuration.key else { throw .keyNeeded }
        return key
    }

    private func seal(_ app: HubAppConfiguration, limits: HubLimits) throws(PostgresAppsError) -> StoredApp {
        let key = try appsKey()
        do {
            try app.validate(limits: limits)
        } catch {
            throw .invalidApp(appID: app.id, reason: error)
        }
        do {
            return try StoredApp(app, sealingWith: key, namespace: configuration.namespace)
        } catch {
            throw .malformedSettings(appID: app.id, reason: "they cannot be written as JSON")
        }
    }

    /// Runs `work`, its failure told as a ``PostgresAppsError``: a unique violation while writing
    /// `app` as ``PostgresAppsError/appExists(_:)`` (its id) or ``PostgresAppsError/keyTaken(_:)``.
    private func attempt<T: Sendable>(writing app: HubAppConfiguration? = nil, _ work: () async throws -> T) async throws(PostgresAppsError) -> T {
        do {
            return try await work()
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" && app != nil {
            let constraint = error.serverInfo?[.constraintName] ?? ""
            throw constraint.hasSuffix("_pkey") ? .appExists(app?.id ?? "") : .keyTaken(app?.key ?? "")
        } catch {
            throw Self.failure(error)
        }
    }

    private static func failure(_ error: any Error) -> PostgresAppsError {
        if let newer = error as? BackplaneSchema.NewerSchema { return .newerSchema(part: newer.part, found: newer.found, known: newer.known) }
        return .database(reason: BackplaneLink.describe(error))
    }
}
