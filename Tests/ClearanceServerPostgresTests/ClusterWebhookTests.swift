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
        let limits = TestHub.limits { $0.webhookBatchWindow = 0.1 }
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

    static func subscribed(to channel: String, on node: ServeProcess) async throws -> ChannelClient {
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(node.port))
        await client.connect()
        _ = try await client.connected()
        try await (await client.subscribe(channel)).subscribed()
        return client
    }

    @Test func aChannelSpanningTwoNodesIsOccupiedOnceAndVacatedOnce() async throws {
        let database = try await ThrowawayPostgres.start()
        try await withCleanup {
            let receiver = try await PythonWebhookReceiver.start()
            try await withCleanup {
                let nodes = try await Self.startNodes(2, database: database, webhookURL: receiver.url)
                try await withCleanup {
                    let first = try await Self.subscribed(to: "news", on: nodes[0])
                    let second = try await Self.subscribed(to: "news", on: nodes[1])
                    try await eventually("channel_occupied") { receiver.events.contains(.channelOccupied(channel: "news")) }
                    await first.disconnect()
                    try await Task.sleep(for: .seconds(1))
                    #expect(!receiver.events.contains(.channelVacated(channel: "news")), "node 1 still has a subscriber")
                    await second.disconnect()
                    try await eventually("channel_vacated") { receiver.events.contains(.channelVacated(channel: "news")) }
                    // Time for a second node's copy, were there one.
                    try await Task.sleep(for: .seconds(2))
                    #expect(receiver.events == [.channelOccupied(channel: "news"), .channelVacated(channel: "news")])
                    #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                } cleanup: {
                    for node in nodes { await node.stop(.kill) }
                }
            } cleanup: {
                await receiver.stop()
            }
        } cleanup: {
            await database.destroy()
        }
    }

    @Test func aWebhookQueuedByAKilledNodeIsDeliveredByTheOtherOnceTheReceiverIsBack() async throws {
        let database = try await ThrowawayPostgres.start()
        try await withCleanup {
            let receiverPort = try LoopbackPort.free()
            let nodes = try await Self.startNodes(2, database: database, webhookURL: "http://127.0.0.1:\(receiverPort)/webhooks")
            try await withCleanup {
                // The receiver is down: node 0 queues channel_occupied and fails to deliver it.
                let client = try await Self.subscribed(to: "news", on: nodes[0])
                try await Task.sleep(for: .seconds(2))
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
        } cleanup: {
            await database.destroy()
        }
    }
}
