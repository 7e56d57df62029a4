import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve --apps-database`: real nodes (a cluster on one throwaway PostgreSQL) whose
/// apps are changed with the real `clearance apps` executable, and edited by hand with `psql`.
@Suite("clearance serve --apps-database: apps kept in PostgreSQL", .timeLimit(.minutes(5)))
struct ServeAppsDatabaseTests {
    static let appsKey = "apps-key-for-the-tests-0123456789-abcdefghij"
    static let clusterKey = "cluster-key-for-the-apps-tests-0123456789-abc"

    /// What nodes and commands are given: the apps database (also the backplane) and the keys.
    static func environment(_ database: ThrowawayPostgres) -> [String: String] {
        [
            "CLEARANCE_APPS_DATABASE_URL": database.url, "CLEARANCE_APPS_KEY": appsKey,
            "CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": clusterKey,
        ]
    }

    /// A configuration file with no apps (limits, host and port only).
    static func configurationFile(port: Int, members: [String: Any] = [:]) throws -> URL {
        var object: [String: Any] = ["host": "127.0.0.1", "port": port]
        object.merge(members) { _, new in new }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-apps-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url
    }

    /// Starts a production `clearance serve` node with its apps in `database`, once it is ready
    /// and linked to the cluster.
    static func startNode(_ database: ThrowawayPostgres, arguments: [String] = []) async throws -> ServeProcess {
        let port = try LoopbackPort.free()
        let node = try await ServeProcess.start(
            configuration: try configurationFile(port: port), port: port, development: false, arguments: arguments, environment: environment(database))
        guard await node.process.line(timeout: .seconds(30), where: { $0.hasPrefix("backplane connected node=") }) != nil else {
            await node.stop(.kill)
            throw ChildProcess.Failure("the node did not join the cluster; stderr: \(node.process.stderr.suffix(2_000))")
        }
        return node
    }

    /// Runs `clearance apps …` against `database`; fails the test unless it exits 0.
    @discardableResult
    static func apps(_ arguments: [String], _ database: ThrowawayPostgres, input: String = "") async throws -> String {
        let run = try await ClearanceExecutable.run(["apps"] + arguments, input: input, environment: environment(database))
        #expect(run.status == 0, "clearance apps \(arguments.joined(separator: " ")) exited with \(run.status): \(run.stderr)")
        return run.stdout
    }

    /// `clearance_apps_refused` as `node` (started with `--metrics-port 0`) reports it now.
    static func refusedApps(_ node: ServeProcess) async throws -> Double? {
        let line = try #require(await node.process.line(timeout: .seconds(10)) { $0.hasPrefix("metrics http://") }, "no metrics line")
        let url = String(try #require(line.split(separator: " ").dropFirst().first))
        return try await PrometheusScrape.scrape(url).value("clearance_apps_refused")
    }

    /// Whether a WebSocket connection with `key` is accepted by the node (`pusher:connection_established`).
    static func accepts(_ node: ServeProcess, key: String) async throws -> Bool {
        let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(node.port)/app/\(key)?protocol=7")!)
        let first = await client.next(timeout: .seconds(5))
        await client.disconnect()
        return first?.event == "pusher:connection_established"
    }

    /// Whether every one of `nodes` accepts a connection with `key`.
    static func accept(_ nodes: [ServeProcess], key: String) async throws -> Bool {
        for node in nodes where try await !accepts(node, key: key) { return false }
        return true
    }

    /// Whether none of `nodes` accepts a connection with `key`.
    static func refuse(_ nodes: [ServeProcess], key: String) async throws -> Bool {
        for node in nodes where try await accepts(node, key: key) { return false }
        return true
    }

    /// A connection with `key` to `node`, subscribed to `channel`.
    static func subscribed(_ node: ServeProcess, key: String, channel: String) async throws -> TestWebSocketClient {
        let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(node.port)/app/\(key)?protocol=7")!)
        let established = try await client.next(event: "pusher:connection_established")
        let socketID = try #require(established.dataObject["socket_id"] as? String)
        client.send(TestHub.subscribeFrame(channel: channel, socketID: socketID))
        _ = try await client.next(event: "pusher_internal:subscription_succeeded", channel: channel)
        return client
    }

    /// The HTTP status of an event triggered on `channel` through `node`'s API, signed with `secret`.
    static func trigger(_ node: ServeProcess, appID: String, key: String, secret: String, channel: String, data: String = "{}") async throws -> Int {
        let signer = try RESTRequestSigner(appID: appID, key: key, secret: secret)
        let body = try JSONSerialization.data(withJSONObject: ["name": "e", "channels": [channel], "data": data], options: [.sortedKeys])
        return try await node.http.signed("POST", signer.eventsPath, body: String(decoding: body, as: UTF8.self), signer: signer).status
    }

    /// How long after `since` every node of `nodes` printed that it applied a change of its apps
    /// whose report holds `change` (`apps changed added=300001 …`, once the hub serves it so).
    static func applied(_ change: String, on nodes: [ServeProcess], since: ContinuousClock.Instant) async throws -> Duration {
        for node in nodes {
            guard await node.process.line(timeout: .seconds(20), where: { $0.hasPrefix("apps changed ") && $0.contains(change) }) != nil else {
                throw ChildProcess.Failure("no node applied \(change): \(node.process.stdout.suffix(2_000)) \(node.process.stderr.suffix(2_000))")
            }
        }
        return ContinuousClock.now - since
    }

    @Test func appsAddedRotatedDisabledAndRemovedWithTheCommandTakeEffectOnBothNodes() async throws {
        try await ThrowawayPostgres.with { database in
            // No app yet: both start, and wait for them.
            async let startingA = Self.startNode(database)
            async let startingB = Self.startNode(database)
            let (nodeA, nodeB) = try await (startingA, startingB)
            try await nodeA.killed {
                try await nodeB.killed {
                    #expect(try await Self.apps(["list"], database) == "no apps\n")
                    #expect(try await !Self.accepts(nodeA, key: "key-one"), "no app yet")
                    let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-secret-\(UUID().uuidString)")
                    defer { try? FileManager.default.removeItem(at: secretFile) }
                    try Data("first-secret-of-app-one-1234567890".utf8).write(to: secretFile)

                    // Added: accepted on both within 2 s.
                    let added = try await Self.apps(["add", "300001", "--key", "key-one", "--secret-file", secretFile.path], database)
                    var since = ContinuousClock.now
                    #expect(added == "added app id=300001 key=key-one\n")
                    var took = try await Self.applied("added=300001 ", on: [nodeA, nodeB], since: since)
                    #expect(took < TestTiming.scaled(.seconds(2)), "the added app applied after \(took)")
                    try await eventually("the added app accepted on both nodes") { try await Self.accept([nodeA, nodeB], key: "key-one") }
                    // Its master key and webhook credentials are secrets too.
                    let master = Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()
                    let secondSettings = """
                        {"encryptionMasterKey": "\(master)", "webhooks": [{"url": "https://hooks.example.com/hook-path-secret?token=hook-query-secret",
                         "events": ["channel_occupied"], "headers": {"Authorization": "Bearer hook-header-secret"}}]}
                        """
                    let secondAdded = try await Self.apps(["add", "300002", "--key", "key-two", "--settings", secondSettings], database)
                    let secondSecret = try #require(secondAdded.split(separator: "\n").last?.split(separator: " ").first?.dropFirst("secret=".count))
                    try await eventually("the second app on both nodes") {
                        try await Self.accept([nodeA, nodeB], key: "key-two")
                    }

                    // A rotated secret: the old one's signatures refused on both, open connections kept.
                    let openA = try await Self.subscribed(nodeA, key: "key-one", channel: "news")
                    let openB = try await Self.subscribed(nodeB, key: "key-one", channel: "news")
                    let oldSecret = "first-secret-of-app-one-1234567890"
                    // Each node knows both subscribers (an event reaches another node's subscriber once it does).
                    let signer = try RESTRequestSigner(appID: "300001", key: "key-one", secret: oldSecret)
                    try await eventually("both nodes know both subscribers") {
                        for node in [nodeA, nodeB] {
                            let info = try await node.http.signed("GET", "/apps/300001/channels/news", query: ["info": "subscription_count"], signer: signer)
                            guard info.json["subscription_count"] as? Int == 2 else { return false }
                        }
                        return true
                    }
                    #expect(try await Self.trigger(nodeA, appID: "300001", key: "key-one", secret: oldSecret, channel: "news", data: "before") == 200)
                    _ = try await openA.next(event: "e", channel: "news")
                    _ = try await openB.next(event: "e", channel: "news")
                    let rotated = try await Self.apps(["rotate-secret", "300001"], database)
                    since = ContinuousClock.now
                    let newSecret = String(try #require(rotated.split(separator: "\n").last?.split(separator: " ").first?.dropFirst("secret=".count)))
                    #expect(!newSecret.isEmpty && newSecret != oldSecret)
                    took = try await Self.applied("updated=300001 ", on: [nodeA, nodeB], since: since)
                    #expect(took < TestTiming.scaled(.seconds(2)), "the rotation applied after \(took)")
                    try await eventually("the old secret refused on both nodes") {
                        let statusA = try await Self.trigger(nodeA, appID: "300001", key: "key-one", secret: oldSecret, channel: "probe")
                        let statusB = try await Self.trigger(nodeB, appID: "300001", key: "key-one", secret: oldSecret, channel: "probe")
                        return statusA == 401 && statusB == 401
                    }
                    #expect(try await Self.trigger(nodeB, appID: "300001", key: "key-one", secret: newSecret, channel: "news", data: "after") == 200)
                    #expect(try await openA.next(event: "e", channel: "news").data as? String == "after", "the open connection on node A stayed")
                    #expect(try await openB.next(event: "e", channel: "news").data as? String == "after", "the open connection on node B stayed")

                    // Disabled: 4003 on both; enabled again: accepted.
                    try await Self.apps(["disable", "300001"], database)
                    #expect(try await openA.closeCode() == 4003)
                    #expect(try await openB.closeCode() == 4003)
                    try await Self.apps(["enable", "300001"], database)
                    try await eventually("the enabled app on node A") { try await Self.accepts(nodeA, key: "key-one") }
                    let keptA = try await Self.subscribed(nodeA, key: "key-one", channel: "news")
                    try await eventually("the enabled app on node B") { try await Self.accepts(nodeB, key: "key-one") }
                    let keptB = try await Self.subscribed(nodeB, key: "key-one", channel: "news")

                    // Removed: 4001 on both, and refused from then on.
                    try await Self.apps(["remove", "300001"], database)
                    #expect(try await keptA.closeCode() == 4001)
                    #expect(try await keptB.closeCode() == 4001)
                    #expect(try await Self.refuse([nodeA, nodeB], key: "key-one"))
                    #expect(try await Self.accepts(nodeB, key: "key-two"), "the other app is served throughout")
                    #expect(try await Self.apps(["list"], database).hasPrefix("300002 key=key-two enabled=true sealed-with="))

                    // A node restarted as services are (SIGTERM, then started again) serves what
                    // changed while it was down, from the database alone.
                    await nodeB.stop()
                    #expect(nodeB.process.status == 0, "node B did not stop cleanly: \(nodeB.process.stderr.suffix(1_000))")
                    try await Self.apps(["add", "300003", "--key", "key-three"], database)
                    let restarted = try await nodeB.startedAgain()
                    try await restarted.killed { () async throws in
                        #expect(try await Self.accepts(restarted, key: "key-three"), "the app added while it was down")
                        #expect(try await Self.accepts(restarted, key: "key-two"))
                        #expect(try await !Self.accepts(restarted, key: "key-one"), "the app removed before it stopped")
                    }

                    // Nothing the hub could read without the key is in a dump, in any form.
                    let dump = try await database.dump()
                    #expect(dump.contains("key-two") && dump.contains("300002"), "the dump holds the apps' table")
                    for secret in [oldSecret, newSecret, String(secondSecret), master, "hook-path-secret", "hook-query-secret", "hook-header-secret"] {
                        for form in [secret, Data(secret.utf8).base64EncodedString(), Data(secret.utf8).map { String(format: "%02x", $0) }.joined()] {
                            #expect(!dump.contains(form), "the dump holds a secret")
                        }
                    }
                }
            }
        }
    }

    @Test func aRowEditedByHandIntoSomethingInvalidIsLoggedAndTheAppKeepsItsLastGoodSettings() async throws {
        try await ThrowawayPostgres.with { database in
            let metrics = ["--metrics-port", "0"]
            let nodeA = try await Self.startNode(database, arguments: metrics)
            try await nodeA.killed {
                try await Self.apps(["add", "300001", "--key", "key-one", "--settings", #"{"maxConnections": 50}"#], database)
                try await Self.apps(["add", "300002", "--key", "key-two"], database)
                let nodeB = try await Self.startNode(database, arguments: metrics)
                try await nodeB.killed {
                    try await eventually("both apps on both nodes") {
                        let one = try await Self.accept([nodeA, nodeB], key: "key-one")
                        let two = try await Self.accept([nodeA, nodeB], key: "key-two")
                        return one && two
                    }
                    _ = try await database.psql(#"UPDATE clearance_backplane_apps SET settings = settings || '{"maxConectionz": 5}' WHERE id = '300001'"#)
                    for node in [nodeA, nodeB] {
                        try await eventually("the refused row logged", timeout: .seconds(20)) { node.process.stderr.contains("maxConectionz") }
                        let logged = node.process.stderr.split(separator: "\n").first { $0.contains("maxConectionz") } ?? ""
                        #expect(logged.contains("300001") && logged.contains("did you mean maxConnections"), "\(logged)")
                        #expect(logged.contains("its last good settings"), "\(logged)")
                        try await eventually("the refused app counted") { try await Self.refusedApps(node) == 1 }
                    }
                    // The running nodes keep its last good settings; the other app goes on.
                    #expect(try await Self.accept([nodeA, nodeB], key: "key-one"))
                    #expect(try await Self.accepts(nodeA, key: "key-two"))
                    // A node started afterwards refuses that app alone, and says why.
                    let nodeC = try await Self.startNode(database, arguments: metrics)
                    try await nodeC.killed { () async throws in
                        #expect(try await Self.refusedApps(nodeC) == 1)
                        #expect(try await !Self.accepts(nodeC, key: "key-one"))
                        #expect(try await Self.accepts(nodeC, key: "key-two"))
                        #expect(nodeC.process.stderr.contains("maxConectionz") && nodeC.process.stderr.contains("not served"), "\(nodeC.process.stderr.suffix(2_000))")
                        // Mended by hand: served there too.
                        _ = try await database.psql("UPDATE clearance_backplane_apps SET settings = settings - 'maxConectionz' WHERE id = '300001'")
                        try await eventually("the mended app on the node that refused it") { try await Self.accepts(nodeC, key: "key-one") }
                        try await eventually("no app refused any more") { try await Self.refusedApps(nodeC) == 0 }
                    }
                }
            }
        }
    }

    /// Runs `clearance apps …` expecting it to fail; returns its standard error.
    static func failing(_ arguments: [String], _ environment: [String: String], input: String = "") async throws -> String {
        let run = try await ClearanceExecutable.run(["apps"] + arguments, input: input, environment: environment)
        #expect(run.status != 0, "clearance apps \(arguments.joined(separator: " ")) succeeded: \(run.stdout)")
        return run.stderr
    }

    @Test func theCommandsRefuseBadInputWithOneLineAndNeverPrintASecret() async throws {
        try await ThrowawayPostgres.with { database in
            let environment = Self.environment(database)
            let master = Data(repeating: 7, count: 32).base64EncodedString()
            let settings = """
                {"encryptionMasterKey": "\(master)", "allowedOrigins": ["https://app.example.com"],
                 "webhooks": [{"url": "https://hooks.example.com/secret-path?token=hook-token", "events": ["channel_occupied"],
                               "headers": {"Authorization": "Bearer webhook-credential"}}]}
                """
            let added = try await Self.apps(["add", "300001", "--key", "key-one", "--secret", "-", "--settings", settings], database, input: "given-secret-1234567890\n")
            #expect(added == "added app id=300001 key=key-one\n", "a secret given is not printed")
            let shown = try await Self.apps(["show", "300001"], database)
            let listed = try await Self.apps(["list"], database)
            for output in [shown, listed] {
                for secret in ["given-secret-1234567890", master, "secret-path", "hook-token", "webhook-credential"] {
                    #expect(!output.contains(secret), "printed a secret: \(output)")
                }
            }
            #expect(shown.contains("https://app.example.com") && shown.contains("https://hooks.example.com") && shown.contains("<redacted>"), "\(shown)")

            // Each mistake: a status other than 0 and one line that names it.
            let mistakes: [([String], String)] = [
                (["set", "300001", #"{"maxConectionz": 5}"#], "did you mean maxConnections?"),
                (["set", "300001", #"{"maxConnections": "many"}"#], "maxConnections"),
                (["set", "300001", #"{"maxConnections": -1}"#], "maxConnections"),
                (["set", "300001", "not json"], "not a JSON object"),
                (["set", "300001", #"{"id": "300009"}"#], "cannot change"),
                (["set", "399999", #"{"maxConnections": 5}"#], "No app has the id 399999"),
                (["add", "300002", "--key", "key-one"], "Another app has the key key-one"),
                (["add", "300001", "--key", "key-nine"], "exists already"),
                (["add", "300003", "--key", "key-three", "--settings", #"{"webhooks": [{"url": "http://example.com/h", "events": ["channel_occupied"]}]}"#], "plain http"),
                (["remove", "399999"], "No app has the id 399999"),
                (["disable", "399999"], "No app has the id 399999"),
                (["rotate-secret", "399999"], "No app has the id 399999"),
            ]
            for (arguments, expected) in mistakes {
                let stderr = try await Self.failing(arguments, environment)
                #expect(stderr.split(separator: "\n").count == 1 && stderr.contains(expected), "\(arguments): \(stderr)")
            }
            var noKey = environment
            noKey["CLEARANCE_APPS_KEY"] = nil
            let keyless = try await Self.failing(["show", "300001"], noKey)
            #expect(keyless.split(separator: "\n").count == 1 && keyless.contains("apps key"), "\(keyless)")
            var bothKeys = environment
            bothKeys["CLEARANCE_APPS_KEY_FILE"] = "/nonexistent/apps.key"
            let both = try await Self.failing(["show", "300001"], bothKeys)
            #expect(both == "error: Both CLEARANCE_APPS_KEY and CLEARANCE_APPS_KEY_FILE are set: give one.\n", "\(both)")
            var otherKey = environment
            otherKey["CLEARANCE_APPS_KEY"] = String(Self.appsKey.reversed())
            let sealed = try await Self.failing(["show", "300001"], otherKey)
            #expect(sealed.contains("sealed with another apps key"), "\(sealed)")
            let typo = try await ClearanceExecutable.run(["apps", "rmeove", "300001"], environment: environment)
            #expect(typo.status != 0 && typo.stderr.split(separator: "\n").first?.contains("rmeove") == true, "\(typo.stderr)")
            // None of them changed anything; the URL can come from a file.
            let urlFile = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-apps-url-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: urlFile) }
            try Data((database.url + "\n").utf8).write(to: urlFile)
            var fromFile = environment
            fromFile["CLEARANCE_APPS_DATABASE_URL"] = nil
            let listed2 = try await ClearanceExecutable.run(["apps", "list", "--database-file", urlFile.path], environment: fromFile)
            #expect(listed2.status == 0 && listed2.stdout.split(separator: "\n").count == 1 && listed2.stdout.hasPrefix("300001 key=key-one "), "\(listed2.stdout) \(listed2.stderr)")
        }
    }

    @Test func aHubRefusesANewerSchemaAFileThatListsAppsAndAMissingKeyAtStart() async throws {
        try await ThrowawayPostgres.with { database in
            let port = try LoopbackPort.free()
            let empty = try Self.configurationFile(port: port)
            defer { try? FileManager.default.removeItem(at: empty) }
            let environment = Self.environment(database)
            func serve(_ file: URL, _ environment: [String: String]) async throws -> ChildProcess.Output {
                try await ClearanceExecutable.run(["serve", "--config", file.path], environment: environment, timeout: .seconds(60))
            }
            // A file that lists apps as well.
            let withApps = try Self.configurationFile(port: port, members: ["apps": [["id": "1", "key": "k", "secret": "s"]]])
            defer { try? FileManager.default.removeItem(at: withApps) }
            let listed = try await serve(withApps, environment)
            #expect(listed.status != 0 && listed.stderr.contains("lists apps"), "\(listed.stderr)")
            // No apps key.
            var keyless = environment
            keyless["CLEARANCE_APPS_KEY"] = nil
            let noKey = try await serve(empty, keyless)
            #expect(noKey.status != 0 && noKey.stderr.contains("apps key"), "\(noKey.stderr)")

            // A schema a newer Clearance migrated: the apps part, then the backplane's.
            try await Self.apps(["list"], database)
            let parts = try await database.psql("SELECT part || '=' || version FROM clearance_backplane_schema ORDER BY part")
            #expect(parts == "apps=1\n", "\(parts)")
            _ = try await database.psql("UPDATE clearance_backplane_schema SET version = 99 WHERE part = 'apps'")
            let newerApps = try await serve(empty, environment)
            #expect(newerApps.status != 0 && newerApps.stderr.contains("apps schema at version 99, newer than this Clearance knows (1)"), "\(newerApps.stderr)")
            let command = try await Self.failing(["list"], environment)
            #expect(command.contains("newer than this Clearance knows"), "\(command)")
            _ = try await database.psql("UPDATE clearance_backplane_schema SET version = 1 WHERE part = 'apps'")
            _ = try await database.psql("INSERT INTO clearance_backplane_schema (part, version) VALUES ('backplane', 42) ON CONFLICT (part) DO UPDATE SET version = 42")
            let newerBackplane = try await serve(empty, environment)
            #expect(newerBackplane.status != 0 && newerBackplane.stderr.contains("backplane schema at version 42"), "\(newerBackplane.stderr)")
        }
    }

    @Test func aRoleGrantedOnlyExecuteOnThePublishFunctionReadsNeitherTheAppsNorTheOutbox() async throws {
        try await ThrowawayPostgres.with { database in
            let node = try await Self.startNode(database)
            try await node.killed {
                let parts = try await database.psql("SELECT part || '=' || version FROM clearance_backplane_schema ORDER BY part")
                #expect(parts == "apps=1\nbackplane=1\n", "\(parts)")
                try await Self.apps(["add", "300001", "--key", "key-one"], database)
                _ = try await database.psql("CREATE ROLE publisher LOGIN")
                _ = try await database.psql("GRANT EXECUTE ON FUNCTION clearance_publish(text, text[], text, text, text) TO publisher")
                let published = try await database.psql("SELECT clearance_publish('300001', ARRAY['news'], 'e', '{}') > 0", as: "publisher")
                #expect(published == "t\n")
                for table in ["clearance_backplane_apps", "clearance_backplane_outbox", "clearance_backplane_schema"] {
                    await #expect(throws: (any Error).self, "the publisher read \(table)") {
                        _ = try await database.psql("SELECT count(*) FROM \(table)", as: "publisher")
                    }
                }
                await #expect(throws: (any Error).self, "the publisher changed an app") {
                    _ = try await database.psql("UPDATE clearance_backplane_apps SET key = 'mine'", as: "publisher")
                }
            }
        }
    }
}
