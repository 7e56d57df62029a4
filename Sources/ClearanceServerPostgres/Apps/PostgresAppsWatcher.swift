import ClearanceServer
import Logging

/// What `clearance serve --apps-database` runs: reads the apps from the database at start, then
/// every ``interval`` reads the number each change raises (``PostgresAppStore/generation()``,
/// raised by a trigger, so a hand edit counts too) and, when it moved, the apps again: a change
/// reaches every hub within one interval and a read, and none is missed.
///
/// Each row is opened and validated on its own. A row that is not a valid app is logged
/// (`hub.apps.refused`, naming the app and the member) once per change of its row; an app
/// that was being served keeps its last good settings, one never seen valid is not served; the
/// other apps go on. A database that cannot be reached is logged (`hub.apps.unavailable`) and
/// tried again each interval; the apps stay as they were.
public actor PostgresAppsWatcher {
    /// The database and the apps key.
    public let configuration: PostgresAppsConfiguration
    /// How often the generation is read: every 250 ms by default.
    public let interval: Duration
    private let limits: HubLimits
    private let logger: Logger
    private var store: PostgresAppStore?
    private var generation: Int?
    private var lastGood: [String: HubAppConfiguration] = [:]
    private var refusals: [String: String] = [:]
    private var unavailable = false

    /// A watcher of the apps in `configuration`'s database, validated under the hub's `limits`.
    public init(configuration: PostgresAppsConfiguration, limits: HubLimits, interval: Duration = .milliseconds(250), logger: Logger) {
        self.configuration = configuration
        self.limits = limits
        self.interval = interval
        self.logger = logger
    }

    /// The ids of the apps whose row is refused now (each logged as `hub.apps.refused`), sorted.
    public var refusedApps: [String] { refusals.keys.sorted() }

    /// Opens the database (creating or migrating the schema), reads the apps and closes it: what
    /// the hub starts with (none is fine: the hub waits for them).
    /// - Throws: ``PostgresAppsError``: the database cannot be reached, its schema is newer, or no apps key.
    public func start() async throws(PostgresAppsError) -> [HubAppConfiguration] {
        guard configuration.key != nil else { throw .keyNeeded }
        // Closed once read (nothing is left open when the hub never starts): the watch opens its own.
        let store = try await PostgresAppStore.open(configuration, logger: logger)
        do {
            let apps = try await read(from: store)
            await store.close()
            return apps
        } catch {
            await store.close()
            throw error
        }
    }

    /// Until cancelled, gives `apply` the whole set of apps each time it changed.
    public func watch(_ apply: @Sendable ([HubAppConfiguration]) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                break
            }
            if let apps = await check() { await apply(apps) }
        }
        await store?.close()
        store = nil
    }

    /// The apps, when they changed since the last read; nil otherwise or when the database is away.
    private func check() async -> [HubAppConfiguration]? {
        do {
            let store = try await connected()
            guard try await store.generation() != generation else { return nil }
            return try await read(from: store)
        } catch {
            if !unavailable {
                unavailable = true
                logger.warning("hub.apps.unavailable", metadata: ["reason": "\(error.message)", "kept": "the apps as they were"])
            }
            await store?.close()
            store = nil
            return nil
        }
    }

    private func connected() async throws(PostgresAppsError) -> PostgresAppStore {
        if let store { return store }
        let store = try await PostgresAppStore.open(configuration, logger: logger)
        self.store = store
        if unavailable {
            unavailable = false
            logger.notice("hub.apps.available")
        }
        return store
    }

    /// Reads every row; keeps each valid one, and for each invalid one the app's last good settings.
    private func read(from store: PostgresAppStore) async throws(PostgresAppsError) -> [HubAppConfiguration] {
        let generation = try await store.generation()
        let rows = try await store.apps(limits: limits)
        var served: [HubAppConfiguration] = []
        var keys: [String: String] = [:]
        var seen = Set<String>()
        for (id, outcome) in rows {
            seen.insert(id)
            switch outcome {
            case let .success(app):
                lastGood[id] = app
                refusals[id] = nil
            case let .failure(error):
                if refusals[id] != error.message {
                    refusals[id] = error.message
                    logger.error("hub.apps.refused", metadata: [
                        "app": "\(id)", "code": "\(error.qualifiedCode)", "reason": "\(error.message)",
                        "kept": "\(lastGood[id] == nil ? "not served" : "its last good settings")",
                    ])
                }
            }
            guard let app = lastGood[id] else { continue }
            if let other = keys[app.key] {
                logger.error("hub.apps.refused", metadata: ["app": "\(id)", "reason": "its key is the key of the app \(other)", "kept": "not served"])
                continue
            }
            keys[app.key] = id
            served.append(app)
        }
        lastGood = lastGood.filter { seen.contains($0.key) }
        refusals = refusals.filter { seen.contains($0.key) }
        self.generation = generation
        return served
    }
}
