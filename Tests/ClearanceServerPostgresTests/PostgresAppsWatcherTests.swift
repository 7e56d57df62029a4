import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Logging
import PostgresNIO
import Testing

/// The apps in PostgreSQL in this process: ``PostgresAppStore`` (what `clearance apps` writes)
/// and ``PostgresAppsWatcher`` (what each hub reads), on a throwaway database.
@Suite("Apps in PostgreSQL: the store and the hubs' watcher", .timeLimit(.minutes(3)))
struct PostgresAppsWatcherTests {
    static let key = try! PostgresAppsKey(secret: "the-apps-key-of-these-tests-0123456789")
    static let otherKey = try! PostgresAppsKey(secret: "another-apps-key-of-these-tests-9876543210")

    static func configuration(_ database: ThrowawayPostgres, key: PostgresAppsKey? = Self.key) throws -> PostgresAppsConfiguration {
        try PostgresAppsConfiguration(url: database.url, key: key)
    }

    static func withStore<T>(_ database: ThrowawayPostgres, key: PostgresAppsKey? = Self.key, _ body: (PostgresAppStore) async throws -> T) async throws -> T {
        let store = try await PostgresAppStore.open(try configuration(database, key: key), logger: TestHub.quietLogger)
        return try await withCleanup { try await body(store) } cleanup: { await store.close() }
    }

    /// The apps each call of the watcher's `apply` got, in order.
    final class Applied: Sendable {
        private let sets = Locked<[[String]]>([])
        func append(_ apps: [HubAppConfiguration]) { sets.withLock { $0.append(apps.map { "\($0.id):\($0.key):\($0.secret)" }) } }
        var last: [String]? { sets.withLock { $0.last } }
    }

    @Test func aRowSealedWithAnotherKeyOrCopiedFromAnotherAppIsRefusedForThatAppAlone() async throws {
        try await ThrowawayPostgres.with { database in
            try await Self.withStore(database, key: Self.otherKey) { (store: PostgresAppStore) async throws in
                try await store.add(HubAppConfiguration(id: "1", key: "key-1", secret: "secret-of-app-1"))
            }
            try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                try await store.add(HubAppConfiguration(id: "2", key: "key-2", secret: "secret-of-app-2"))
                try await store.add(HubAppConfiguration(id: "3", key: "key-3", secret: "secret-of-app-3"))
            }
            // App 3's sealed secrets copied into app 2's row: bound to app 3, they do not open for app 2.
            _ = try await database.psql("UPDATE clearance_backplane_apps SET sealed = (SELECT sealed FROM clearance_backplane_apps WHERE id = '3') WHERE id = '2'")
            let logs = LogCapture()
            let watcher = PostgresAppsWatcher(configuration: try Self.configuration(database), limits: HubLimits(), logger: logs.logger())
            let apps = try await watcher.start()
            #expect(apps.map(\.id) == ["3"] && apps.first?.secret == "secret-of-app-3")
            #expect(logs.text.contains("sealed with another apps key (key id \(Self.otherKey.id); this one's is \(Self.key.id))"), "\(logs.text)")
            #expect(logs.text.contains("The sealed secrets of the app 2 do not open"), "\(logs.text)")
            #expect(!logs.text.contains("secret-of-app"), "a secret was logged")
        }
    }

    @Test func everyChangeReachesTheWatcherAndABadRowKeepsTheLastGoodSettings() async throws {
        try await ThrowawayPostgres.with { database in
            let logs = LogCapture()
            let watcher = PostgresAppsWatcher(configuration: try Self.configuration(database), limits: HubLimits(), interval: .milliseconds(20), logger: logs.logger())
            #expect(try await watcher.start().isEmpty, "an empty database: no apps, and no error")
            let applied = Applied()
            let watching = Task { await watcher.watch { applied.append($0) } }
            try await withCleanup {
                try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                    try await store.add(HubAppConfiguration(id: "1", key: "key-1", secret: "first-secret"))
                    try await eventually("the added app") { applied.last == ["1:key-1:first-secret"] }
                    var app = try await store.app(id: "1")
                    app.secret = "second-secret"
                    try await store.replace(app)
                    try await eventually("the new secret") { applied.last == ["1:key-1:second-secret"] }
                    // A hand edit that does not validate: logged once, the last good settings kept.
                    _ = try await database.psql(#"UPDATE clearance_backplane_apps SET settings = settings || '{"clientEventsPerSecond": -5}'"#)
                    try await store.add(HubAppConfiguration(id: "2", key: "key-2", secret: "other"))
                    try await eventually("the next app") { applied.last == ["1:key-1:second-secret", "2:key-2:other"] }
                    #expect(logs.all.filter { $0.contains("hub.apps.refused") }.count == 1, "\(logs.text)")
                    #expect(logs.text.contains("clientEventsPerSecond") && logs.text.contains("its last good settings"), "\(logs.text)")
                    // The database away: the apps stay as they were; back: the changes made meanwhile arrive.
                    try await database.stopDatabase()
                    try await eventually("the outage logged") { logs.text.contains("hub.apps.unavailable") }
                    #expect(applied.last == ["1:key-1:second-secret", "2:key-2:other"])
                    try await database.startDatabase()
                }
                try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                    try await store.remove(id: "1")
                    try await eventually("the removal after the outage") { applied.last == ["2:key-2:other"] }
                }
            } cleanup: {
                watching.cancel()
                await watching.value
            }
        }
    }

    @Test func storesOpenedAtOnceOnAnEmptyDatabaseAllComeUpOnOneSchema() async throws {
        try await ThrowawayPostgres.with { database in
            let configuration = try Self.configuration(database)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let store = try await PostgresAppStore.open(configuration, logger: TestHub.quietLogger)
                        try await store.add(HubAppConfiguration(id: "\(index)", key: "key-\(index)", secret: "secret-\(index)"))
                        await store.close()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await database.psql("SELECT part || '=' || version FROM clearance_backplane_schema") == "apps=1\n")
            try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                #expect(try await store.list().map(\.id) == ["0", "1", "2", "3", "4", "5"])
                #expect(try await store.generation() == 6, "each change raised the generation once")
            }
        }
    }

    @Test func changesMadeAtOnceNeverLoseOneAnother() async throws {
        try await ThrowawayPostgres.with { database in
            try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                try await store.add(HubAppConfiguration(id: "1", key: "key-1", secret: "first-secret", allowedOrigins: []))
            }
            let configuration = try Self.configuration(database)
            // Twelve commands at once, each adding its origin to the list it read: a change that read
            // the list before another wrote it would lose that one's origin.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        let store = try await PostgresAppStore.open(configuration, logger: TestHub.quietLogger)
                        do {
                            try await store.change(id: "1") { app in
                                var app = app
                                app.allowedOrigins = (app.allowedOrigins ?? []) + ["https://o\(index).example.com"]
                                if index == 5 { app.secret = "rotated-secret" }
                                return app
                            }
                        } catch {
                            await store.close()
                            throw error
                        }
                        await store.close()
                    }
                }
                try await group.waitForAll()
            }
            try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                let app = try await store.app(id: "1")
                #expect(Set(app.allowedOrigins ?? []) == Set((0..<12).map { "https://o\($0).example.com" }), "\(app.allowedOrigins ?? [])")
                #expect(app.secret == "rotated-secret", "the rotation stayed")
                await #expect(throws: PostgresAppsError.noSuchApp("9")) { try await store.change(id: "9") { $0 } }
                await #expect(throws: PostgresAppsError.self) {
                    try await store.change(id: "1") { app in
                        var app = app
                        app.maxConnections = -1
                        return app
                    }
                }
                #expect(try await store.app(id: "1").maxConnections == nil, "a change that does not validate writes nothing")
            }
        }
    }

    @Test func theStoreRefusesWhatTheFileWouldAndNamesTheApp() async throws {
        try await ThrowawayPostgres.with { database in
            try await Self.withStore(database) { (store: PostgresAppStore) async throws in
                await #expect(throws: PostgresAppsError.self) { try await store.add(HubAppConfiguration(id: "1", key: "k", secret: "")) }
                try await store.add(HubAppConfiguration(id: "1", key: "k", secret: "s"))
                await #expect(throws: PostgresAppsError.appExists("1")) { try await store.add(HubAppConfiguration(id: "1", key: "k2", secret: "s")) }
                await #expect(throws: PostgresAppsError.keyTaken("k")) { try await store.add(HubAppConfiguration(id: "2", key: "k", secret: "s")) }
                await #expect(throws: PostgresAppsError.noSuchApp("9")) { try await store.remove(id: "9") }
                await #expect(throws: PostgresAppsError.noSuchApp("9")) { try await store.setEnabled(false, id: "9") }
            }
            try await Self.withStore(database, key: nil) { (store: PostgresAppStore) async throws in
                #expect(try await store.list().map(\.id) == ["1"], "listing needs no key")
                await #expect(throws: PostgresAppsError.keyNeeded) { _ = try await store.app(id: "1") }
            }
            #expect(throws: PostgresAppsError.keyTooShort(minimum: 32)) { _ = try PostgresAppsKey(secret: "short") }
            #expect(throws: PostgresAppsError.self) { _ = try PostgresAppsConfiguration(url: "postgres://u@h/db?namespace=Bad-Name", key: nil) }
            #expect(!String(describing: Self.key).contains("the-apps-key"))
        }
    }
}
