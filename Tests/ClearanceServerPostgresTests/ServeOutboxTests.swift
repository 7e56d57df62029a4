import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import PostgresNIO
import Testing

/// Publishing from inside an app's own transactions (`clearance_publish`) to real `clearance
/// serve` nodes on PostgreSQL, from Python (psycopg) in real transactions, as a role granted only
/// EXECUTE on the function (`Tests/Interop/outbox_publish.py`).
@Suite("clearance serve cluster: publishing from a transaction", .timeLimit(.minutes(4)))
struct ServeOutboxTests {
    /// A `ChannelClient` on one node, subscribed to `channels`, recording each one's data in order.
    final class Listener: Sendable {
        let client: ChannelClient
        private let received = Locked<[String: [String]]>([:])
        private let readers = Locked<[Task<Void, Never>]>([])

        init(port: Int) {
            client = ChannelClient(key: TestHub.key, options: TestHub.options(port))
        }

        func subscribe(_ channels: [String]) async throws {
            await client.connect()
            for name in channels {
                let channel = await client.subscribe(name)
                let events = channel.events
                let received = received
                readers.withLock { $0.append(Task { for await event in events where event.name == "e" { received.withLock { $0[name, default: []].append(event.data ?? "") } } }) }
                try await channel.subscribed()
            }
        }

        func data(_ channel: String) -> [String] { received.withLock { $0[channel] ?? [] } }

        func stop() async {
            for reader in readers.withLock({ $0 }) { reader.cancel() }
            await client.disconnect()
        }
    }

    /// Runs one step of `outbox_publish.py` as `role` and returns its report.
    @discardableResult
    static func publish(_ database: ThrowawayPostgres, as role: String, _ arguments: [String]) async throws -> [String: Any] {
        let run = try await PythonPeer.run("outbox_publish.py", [String(database.port), role] + arguments)
        #expect(run.status == 0, "outbox_publish.py \(arguments.first ?? "") exited with \(run.status): \(run.stderr.suffix(2_000))")
        let line = try #require(run.stdout.split(separator: "\n").last.map(String.init), "no report: \(run.stderr.suffix(2_000))")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A login role that may execute `clearance_publish` and nothing else.
    static func makePublisher(_ database: ThrowawayPostgres, _ role: String = "publisher") async throws {
        try await SealedBackplaneTests.sql("CREATE ROLE \(role) LOGIN", as: "postgres", database)
        try await SealedBackplaneTests.sql(
            "GRANT EXECUTE ON FUNCTION clearance_publish(text, text[], text, text, text) TO \(role)", as: "postgres", database)
    }

    static func rows(_ query: String, _ database: ThrowawayPostgres) async throws -> [String] {
        let connection = try await SealedBackplaneTests.connect(as: "postgres", database)
        return try await withCleanup {
            do {
                var rows: [String] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: query), logger: TestHub.quietLogger).decode(String.self) {
                    rows.append(row)
                }
                return rows
            } catch let error as PSQLError {
                // Its description hides the server's message; the test's failure must say it.
                throw ChildProcess.Failure("\(query): \(error.serverInfo?[.message] ?? String(reflecting: error))")
            }
        } cleanup: {
            try? await connection.close()
        }
    }

    @Test func committedEventsReachEveryNodeOnceInCommitOrderAndRolledBackOnesNever() async throws {
        try await ServeCluster.withTwoNodesAndDatabase { nodeA, nodeB, database in
            try await Self.makePublisher(database)
            let listeners = [Listener(port: nodeA.port), Listener(port: nodeB.port)]
            try await withCleanup {
                for listener in listeners { try await listener.subscribe(["outbox-1", "outbox-2"]) }
                let report = try await Self.publish(database, as: "publisher", ["commit", TestHub.appID, "outbox-1,outbox-2", "1000", "4"])
                #expect(report["published"] as? [String: Int] == ["outbox-1": 500, "outbox-2": 500])
                try await Self.publish(database, as: "publisher", ["rollback", TestHub.appID, "outbox-1", "100"])
                // After the rolled-back ones: once it is here, any of them would have been too.
                try await Self.publish(database, as: "publisher", ["one", TestHub.appID, "outbox-1", "e", "last"])

                for listener in listeners {
                    try await eventually("every committed event", timeout: .seconds(60)) {
                        listener.data("outbox-1").last == "last" && listener.data("outbox-2").count >= 500
                    }
                    #expect(listener.data("outbox-1") == (1...500).map { "outbox-1:\($0)" } + ["last"], "in commit order, each once, none rolled back")
                    #expect(listener.data("outbox-2") == (1...500).map { "outbox-2:\($0)" })
                }
                try await eventually("the outbox emptied") { try await Self.rows("SELECT count(*)::text FROM clearance_backplane_outbox", database) == ["0"] }
            } cleanup: {
                for listener in listeners { await listener.stop() }
            }
        }
    }

    @Test func aRowThatCanNeverBeDeliveredIsSetAsideWithItsReasonAndTheNextGoesOn() async throws {
        try await ServeCluster.withTwoNodesAndDatabase { nodeA, _, database in
            try await Self.makePublisher(database)
            let listener = Listener(port: nodeA.port)
            try await withCleanup {
                try await listener.subscribe(["outbox-1"])
                try await Self.publish(database, as: "publisher", ["one", "999999", "outbox-1", "e", "unknown app"])
                try await Self.publish(database, as: "publisher", ["one", TestHub.appID, "bad name!", "e", "bad channel"])
                try await Self.publish(database, as: "publisher", ["one", TestHub.appID, "outbox-1", "e", "delivered"])
                try await eventually("the valid event behind them") { listener.data("outbox-1") == ["delivered"] }
                let reasons = try await Self.rows(
                    "SELECT app_id || ' ' || array_to_string(channels, ',') || ': ' || reason FROM clearance_backplane_outbox_rejected ORDER BY id",
                    database)
                #expect(reasons.count == 2, "\(reasons)")
                #expect(reasons.first?.hasPrefix("999999 outbox-1: no app has the id '999999'") == true, "\(reasons)")
                #expect(reasons.last?.hasPrefix("\(TestHub.appID) bad name!: ") == true, "\(reasons)")
                #expect(try await Self.rows("SELECT count(*)::text FROM clearance_backplane_outbox", database) == ["0"])
            } cleanup: {
                await listener.stop()
            }
        }
    }

    @Test func aRoleGrantedOnlyExecuteCanPublishAndReadNothingAndOneWithoutTheGrantCannotPublish() async throws {
        try await ServeCluster.withTwoNodesAndDatabase { _, _, database in
            try await Self.makePublisher(database)
            try await SealedBackplaneTests.sql("CREATE ROLE stranger LOGIN", as: "postgres", database)
            let granted = try await Self.publish(database, as: "publisher", ["probe"])
            #expect(granted["publish"] as? String == "allowed")
            #expect((granted["read_outbox"] as? String)?.hasPrefix("denied") == true, "\(granted)")
            #expect((granted["read_nodes"] as? String)?.hasPrefix("denied") == true, "\(granted)")
            let stranger = try await Self.publish(database, as: "stranger", ["probe"])
            #expect((stranger["publish"] as? String)?.hasPrefix("denied: permission denied for function clearance_publish") == true, "\(stranger)")
            #expect((stranger["read_outbox"] as? String)?.hasPrefix("denied") == true, "\(stranger)")
        }
    }

    @Test func aNodeKilledWhileItDrainsLeavesItsRowsToAnotherAndNoneIsLost() async throws {
        try await ServeCluster.withTwoNodesAndDatabase(arguments: ["--log-level", "info"]) { nodeA, nodeB, database in
            try await Self.makePublisher(database)
            let listeners = [Listener(port: nodeA.port), Listener(port: nodeB.port)]
            try await withCleanup {
                for listener in listeners { try await listener.subscribe(["outbox-1"]) }
                // One transaction: 3,000 rows to drain at once, six turns of 500.
                try await Self.publish(database, as: "publisher", ["commit", TestHub.appID, "outbox-1", "3000", "3000"])

                // The node that drains is killed as it drains; the other delivers the rest.
                let nodes = [nodeA, nodeB]
                var drainer: Int?
                try await eventually("a node draining", timeout: .seconds(30)) {
                    drainer = nodes.firstIndex { $0.process.stderr.contains("backplane.outbox.draining") }
                    return drainer != nil
                }
                let killed = try #require(drainer)
                await nodes[killed].stop(.kill)
                let survivor = listeners[1 - killed]
                do {
                    try await eventually("every event on the other node", timeout: .seconds(60)) { Set(survivor.data("outbox-1")).count == 3000 }
                } catch {
                    // What the database and the nodes say, for the failure.
                    let state = try await Self.rows("""
                        SELECT 'outbox ' || (SELECT count(*) FROM clearance_backplane_outbox)::text
                        UNION ALL SELECT 'lock ' || pid::text || ' ' || mode || ' ' || granted::text FROM pg_locks WHERE locktype = 'advisory'
                        UNION ALL SELECT 'backend ' || pid::text || ' ' || coalesce(state, '') || ' ' || coalesce(wait_event, '') || ' ' || left(query, 60)
                          FROM pg_stat_activity WHERE datname = 'postgres' AND pid <> pg_backend_pid()
                        """, database)
                    Issue.record("killed node \(killed); the survivor got \(Set(survivor.data("outbox-1")).count) of 3,000, the killed one \(listeners[killed].data("outbox-1").count); \(state.joined(separator: "; ")); the survivor's log: \(nodes[1 - killed].process.stderr.suffix(3_000))")
                    throw error
                }
                #expect(Set(survivor.data("outbox-1")) == Set((1...3000).map { "outbox-1:\($0)" }), "none lost (some may come twice)")
                try await eventually("the outbox emptied") { try await Self.rows("SELECT count(*)::text FROM clearance_backplane_outbox", database) == ["0"] }
            } cleanup: {
                for listener in listeners { await listener.stop() }
            }
        }
    }

    @Test func twoNodesStartingAtOnceOnAnEmptyDatabaseBothComeUpAndShareOneOutbox() async throws {
        try await ThrowawayPostgres.with { database in
            let cluster = ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
            let ports = (try LoopbackPort.free(), try LoopbackPort.free())
            let files = (
                try ServeProcess.writeConfiguration(port: ports.0, limits: TestHub.limits()),
                try ServeProcess.writeConfiguration(port: ports.1, limits: TestHub.limits()))
            defer {
                try? FileManager.default.removeItem(at: files.0)
                try? FileManager.default.removeItem(at: files.1)
            }
            // Both make the tables and the function at the same moment.
            async let startingA = ServeProcess.start(configuration: files.0, port: ports.0, environment: cluster)
            async let startingB = ServeProcess.start(configuration: files.1, port: ports.1, environment: cluster)
            let started = await (try? startingA, try? startingB)
            try await withCleanup {
                let nodeA = try #require(started.0, "node A did not start")
                let nodeB = try #require(started.1, "node B did not start")
                for node in [nodeA, nodeB] {
                    let linked = await node.process.line(timeout: .seconds(30)) { $0.hasPrefix("backplane connected node=") }
                    #expect(linked != nil, "not linked: \(node.process.stderr.suffix(2_000))")
                }
                #expect(try await Self.rows(
                    "SELECT count(*)::text FROM pg_proc WHERE proname = 'clearance_publish'", database) == ["1"])
                try await Self.makePublisher(database)
                let listener = Listener(port: nodeB.port)
                try await withCleanup {
                    try await listener.subscribe(["outbox-1"])
                    try await Self.publish(database, as: "publisher", ["one", TestHub.appID, "outbox-1", "e", "after a concurrent start"])
                    try await eventually("the event") { listener.data("outbox-1") == ["after a concurrent start"] }
                } cleanup: {
                    await listener.stop()
                }
            } cleanup: {
                await started.0?.stop()
                await started.1?.stop()
            }
        }
    }
}

