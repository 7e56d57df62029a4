import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceTestSupport
import Foundation
import PostgresNIO
import Testing

/// Connection recovery across a cluster of real `clearance serve` nodes on PostgreSQL, seen by
/// raw frames from Python (`websocket-client`), every event triggered by the official `pusher`
/// library (`Tests/Interop/hub_resume_nodes.py`), and by `ChannelClient`.
@Suite("clearance serve cluster: connection recovery", .timeLimit(.minutes(4)))
struct ServeClusterRecoveryTests {
    static let history = ChannelHistoryConfiguration(size: 300, ttl: 120)

    /// Runs one step of `hub_resume_nodes.py` against `node` and returns its report.
    static func step(_ name: String, _ node: ServeProcess, _ arguments: [String]) async throws -> [String: Any] {
        let run = try await PythonPeer.run(
            "hub_resume_nodes.py", [name, "127.0.0.1", String(node.port), TestHub.appID, TestHub.key, TestHub.secret, "orders"] + arguments)
        #expect(run.status == 0, "hub_resume_nodes.py \(name) exited with \(run.status): \(run.stderr.suffix(2_000))")
        let line = try #require(run.stdout.split(separator: "\n").last.map(String.init), "no report: \(run.stderr.suffix(2_000))")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    private static func serials(of triggers: Any?) -> [Int?] {
        ((triggers as? [[String: Any]]) ?? []).map { ($0["channels"] as? [String: [String: Int]])?["orders"]?["serial"] }
    }

    @Test func aClientThatLeavesNodeAComesBackOnNodeBAndRecoversEveryEventOnceInOrder() async throws {
        try await ServeCluster.withTwoNodesAndDatabase(adjustApp: { $0.history = Self.history }) { nodeA, nodeB, database in
            let first = try await Self.step("subscribe", nodeA, [])
            let subscribed = try #require(first["subscribed"] as? [String: Any])
            #expect(subscribed["serial"] as? Int == 0)
            let event = try #require(first["event"] as? [String: Any])
            let stream = try #require(event["stream"] as? String)
            #expect(event["serial"] as? Int == 1)

            // 50 missed, triggered through both nodes: one numbering for the cluster.
            let throughA = try await Self.step("trigger", nodeA, ["2", "25"])
            let throughB = try await Self.step("trigger", nodeB, ["27", "25"])
            #expect(Self.serials(of: throughA["triggers"]) == (2...26).map { Int?($0) })
            #expect(Self.serials(of: throughB["triggers"]) == (27...51).map { Int?($0) })

            let back = try await Self.step("resume", nodeB, [stream, "1", "50"])
            let resumed = try #require(back["resumed"] as? [String: Any])
            #expect(resumed["event"] as? String == "pusher_internal:subscription_succeeded")
            #expect(resumed["recovered"] as? Bool == true)
            #expect(resumed["stream"] as? String == stream)
            #expect(resumed["serial"] as? Int == 51)
            let replayed = try #require(back["replayed"] as? [[String: Any]])
            #expect(replayed.map { $0["serial"] as? Int } == (2...51).map { Int?($0) })
            #expect(replayed.map { $0["data"] as? String } == (2...51).map { "\($0)" })
            #expect(replayed.allSatisfy { $0["stream"] as? String == stream })
            let live = try #require(back["live"] as? [String: Any])
            #expect(live["serial"] as? Int == 52)
            #expect(live["data"] as? String == "live")

            // What the database holds names neither the app nor the channel, and shows no event.
            let connection = try await SealedBackplaneTests.connect(as: "postgres", database)
            try await withCleanup {
                var rows: [String] = []
                let query: PostgresQuery = """
                    SELECT app_key || ' ' || channel_key || ' ' || stream || ' ' || sealed FROM clearance_backplane_history_events
                    UNION ALL SELECT app_key || ' ' || channel_key || ' ' || stream FROM clearance_backplane_history_streams
                    """
                for try await row in try await connection.query(query, logger: TestHub.quietLogger).decode(String.self) { rows.append(row) }
                #expect(rows.count == 53, "52 events and the channel's stream")
                #expect(!rows.contains { $0.contains("orders") || $0.hasPrefix(TestHub.appID + " ") || $0.contains("\"event\"") })
            } cleanup: {
                try? await connection.close()
            }
        }
    }

    @Test func aNodeKilledRightAfterTwentyTriggersLosesNoneOfThem() async throws {
        try await ServeCluster.withTwoNodes(adjustApp: { $0.history = Self.history }) { nodeA, nodeB, cluster in
            let first = try await Self.step("subscribe", nodeA, [])
            let event = try #require(first["event"] as? [String: Any])
            let stream = try #require(event["stream"] as? String)

            let triggered = try await Self.step("trigger", nodeA, ["2", "20"])
            #expect(Self.serials(of: triggered["triggers"]) == (2...21).map { Int?($0) }, "each of the 20 got 200 and its serial")
            // At once: what node A had not sent node B dies with it.
            await nodeA.stop(.kill)

            // Node B (which may have heard them), and node C, started after the kill with nothing in
            // its memory: each replays all 20, from the database.
            let back = try await Self.step("resume", nodeB, [stream, "1", "20"])
            try await ServeCluster.withNode(environment: cluster, adjustApp: { $0.history = Self.history }) { nodeC in
                // The channel is at 22 now (node B's live event): 21 to replay.
                let fresh = try await Self.step("resume", nodeC, [stream, "1", "21"])
                for (name, report, live) in [("node B", back, 22), ("node C", fresh, 23)] {
                    let resumed = try #require(report["resumed"] as? [String: Any], "\(name)")
                    #expect(resumed["recovered"] as? Bool == true, "\(name)")
                    #expect(resumed["stream"] as? String == stream, "\(name)")
                    let replayed = try #require(report["replayed"] as? [[String: Any]], "\(name)")
                    #expect(replayed.map { $0["serial"] as? Int } == (2..<live).map { Int?($0) }, "\(name)")
                    #expect(replayed.map { $0["data"] as? String } == ((2...21).map { "\($0)" } + ["live"]).prefix(live - 2).map { $0 }, "\(name)")
                    #expect((report["live"] as? [String: Any])?["serial"] as? Int == live, "\(name)")
                }
            }
        }
    }

    @Test func channelClientOverANodeStoppedWithSIGTERMAndStartedAgainRecoversEveryEventOnceInOrder() async throws {
        try await ServeCluster.withTwoNodes(adjustApp: { $0.history = Self.history }) { nodeA, nodeB, _ in
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(nodeA.port))
            let restarted = Locked<ServeProcess?>(nil)
            try await withCleanup {
                await client.connect()
                let events = Locked<[ClearanceChannels.ChannelEvent]>([])
                let channel = await client.subscribe("orders")
                let stream = channel.events
                let reader = Task { for await event in stream { events.withLock { $0.append(event) } } }
                defer { reader.cancel() }
                try await channel.subscribed()
                func data() -> [String] { events.withLock { $0 }.filter { $0.name == "e" }.compactMap(\.data) }
                func recoveries() -> [ChannelRecovery] { events.withLock { $0 }.compactMap(ChannelRecovery.init) }

                try await TestHub.trigger(nodeB.http, event: "e", channels: ["orders"], data: "1")
                try await eventually("the first event") { data() == ["1"] }

                // Node A drains and stops; events go on through node B while it is away.
                await nodeA.stop()
                for index in 2...11 { try await TestHub.trigger(nodeB.http, event: "e", channels: ["orders"], data: "\(index)") }
                let again = try await ServeCluster.restartedAfterStop(nodeA)
                restarted.withLock { $0 = again }

                try await eventually("a recovery signal after the restart", timeout: .seconds(60)) { !recoveries().isEmpty }
                #expect(recoveries() == [.recovered])
                #expect(channel.recovery == .recovered)
                try await eventually("the missed events") { data().count >= 11 }
                try await TestHub.trigger(nodeB.http, event: "e", channels: ["orders"], data: "12")
                try await eventually("a live event") { data().count >= 12 }
                #expect(data() == (1...12).map { "\($0)" }, "each event once, in order")
            } cleanup: {
                await client.disconnect()
                await restarted.withLock { $0 }?.stop()
            }
        }
    }
}
