import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import Testing

/// Webhooks of a cluster of real `clearance serve` nodes on a real PostgreSQL, received by the
/// official Pusher library's `validate_webhook` (Tests/Interop/webhook_receiver.py).
@Suite("Cluster webhooks", .timeLimit(.minutes(3)))
struct ClusterWebhookTests {
    /// Starts `clearance serve` nodes of one cluster on `database`, sending every event but
    /// `cache_miss` to `url`.
    static func startNodes(_ count: Int, database: ThrowawayPostgres, webhookURL url: String) async throws -> [ServeProcess] {
        let limits = TestHub.limits { $0.webhooks.webhookBatchWindow = 0.1 }
        var nodes: [ServeProcess] = []
        for _ in 0..<count {
            let port = try LoopbackPort.free()
            let configuration = try ServeProcess.writeConfiguration(port: port, limits: limits) { app in
                app.webhooks = [WebhookTarget(url: url, events: [.channelOccupied, .channelVacated, .memberAdded, .memberRemoved, .clientEvent])]
            }
            let node = try await ServeProcess.start(
                configuration: configuration, port: port,
                environment: ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret])
            nodes.append(node)
            guard await node.process.line(timeout: .seconds(30), where: { $0.hasPrefix("backplane connected node=") }) != nil else {
                for node in nodes { await node.stop(.kill) }
                throw ChildProcess.Failure("a node did not link: \(node.process.stderr.suffix(1_000))")
            }
        }
        return nodes
    }

    /// The rows of the cluster's occupancy table (a place per channel or member and node).
    static func occupancyRows(_ database: ThrowawayPostgres) async throws -> Int? {
        try await count("SELECT count(*) FROM clearance_backplane_occupancy", database)
    }

    /// The number a `SELECT count(*) …` answers, through psql.
    static func count(_ query: String, _ database: ThrowawayPostgres) async throws -> Int? {
        let output = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/psql"), ["-X", "-At", "-c", query, database.url])
        return Int(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func subscribed(to channel: String, on node: ServeProcess) async throws -> ChannelClient {
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(node.port))
        await client.connect()
        _ = try await client.connected()
        try await (await client.subscribe(channel)).subscribed()
        return client
    }

    @Test func aChannelSpanningTwoNodesIsOccupiedOnceAndVacatedOnce() async throws {
        try await ThrowawayPostgres.with { database in
            let receiver = try await PythonWebhookReceiver.start()
            try await withCleanup {
                let nodes = try await Self.startNodes(2, database: database, webhookURL: receiver.url)
                try await withCleanup {
                    let first = try await Self.subscribed(to: "news", on: nodes[0])
                    let second = try await Self.subscribed(to: "news", on: nodes[1])
                    try await eventually("channel_occupied") { receiver.events.contains(.channelOccupied(channel: "news")) }
                    // Both nodes' places are written (each node writes its own, a moment after
                    // its subscriber came): until then node 0's leaving would be, for the
                    // cluster, the channel's last subscriber leaving.
                    try await eventually("both nodes' occupancy rows") { try await Self.occupancyRows(database) == 2 }
                    await first.disconnect()
                    try await eventually("node 0's place removed") { try await Self.occupancyRows(database) == 1 }
                    // Positive control: node 0 applies its changes in order and emits what each
                    // decides before the next, and a target's webhooks go out in order; so once
                    // node 0's next change (a channel "marker" occupied) has arrived, a vacated
                    // that node 0 decided for "news" would have arrived before it.
                    let marker = try await Self.subscribed(to: "marker", on: nodes[0])
                    try await eventually("marker occupied") { receiver.events.contains(.channelOccupied(channel: "marker")) }
                    #expect(!receiver.events.contains(.channelVacated(channel: "news")), "node 1 still has a subscriber")
                    await second.disconnect()
                    try await eventually("channel_vacated") { receiver.events.contains(.channelVacated(channel: "news")) }
                    // A second copy could come only from node 0, which decided before its marker.
                    await marker.disconnect()
                    try await eventually("marker vacated") { receiver.events.contains(.channelVacated(channel: "marker")) }
                    #expect(receiver.events.filter { $0.channel == "news" } == [.channelOccupied(channel: "news"), .channelVacated(channel: "news")])
                    #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                } cleanup: {
                    for node in nodes { await node.stop(.kill) }
                }
            } cleanup: {
                await receiver.stop()
            }
        }
    }

    @Test func aWebhookQueuedByAKilledNodeIsDeliveredByTheOtherOnceTheReceiverIsBack() async throws {
        try await ThrowawayPostgres.with { database in
            let receiverPort = try LoopbackPort.free()
            let nodes = try await Self.startNodes(2, database: database, webhookURL: "http://127.0.0.1:\(receiverPort)/webhooks")
            try await withCleanup {
                // The receiver is down: node 0 queues channel_occupied and fails to deliver it.
                let client = try await Self.subscribed(to: "news", on: nodes[0])
                try await eventually("the webhook queued in the database and its first attempt failed", timeout: .seconds(30)) {
                    let queued = try await Self.count("SELECT count(*) FROM clearance_backplane_webhooks", database)
                    let failed = try await Self.count("SELECT count(*) FROM clearance_backplane_webhook_targets WHERE attempts > 0", database)
                    return queued == 1 && failed == 1
                }
                await nodes[0].stop(.kill)
                await client.disconnect()
                let receiver = try await PythonWebhookReceiver.start(port: receiverPort)
                try await withCleanup {
                    try await eventually("the killed node's webhook, from the other node", timeout: .seconds(60)) {
                        receiver.events.contains(.channelOccupied(channel: "news"))
                    }
                    #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                    #expect(nodes[1].process.isRunning)
                } cleanup: {
                    await receiver.stop()
                }
            } cleanup: {
                for node in nodes { await node.stop(.kill) }
            }
        }
    }
}
