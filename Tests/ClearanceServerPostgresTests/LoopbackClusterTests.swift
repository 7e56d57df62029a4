import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Testing

/// What a test can do to the in-memory cluster's links: hold them up, and lose messages.
@Suite("Loopback cluster", .timeLimit(.minutes(2)))
struct LoopbackClusterTests {
    @Test func heldDeliveriesArriveInOrderOnceReleasedAndDroppedOnesNeverButTheStateHeals() async throws {
        try await ClusterFixture.with(.loopback, nodes: 2) { cluster in
            let loopback = try #require(cluster.loopback)
            let here = ChannelClient(key: TestHub.key, options: TestHub.options(cluster.nodes[0].port))
            let there = ChannelClient(key: TestHub.key, options: TestHub.options(cluster.nodes[1].port))
            for client in [here, there] { await client.connect() }
            let hereNews = await here.subscribe("news")
            let thereNews = await there.subscribe("news")
            for channel in [hereNews, thereNews] { try await channel.subscribed() }
            let api = TestHTTP(cluster.nodes[0])
            try await eventually("node 0 counts node 1's subscriber") {
                try await api.signed("GET", "/apps/\(TestHub.appID)/channels/news", query: ["info": "subscription_count"]).json["subscription_count"] as? Int == 2
            }
            let hereLog = EventLog(hereNews, event: "e")
            let thereLog = EventLog(thereNews, event: "e")

            // Held: node 0's own subscriber gets the events, node 1's only after the release, in order.
            loopback.hold()
            for n in 1...3 { try await TestHub.trigger(api, event: "e", channels: ["news"], data: #"{"n":\#(n)}"#) }
            try await eventually("node 0's subscriber") { hereLog.count == 3 }
            #expect(thereLog.count == 0)
            loopback.release()
            try await eventually("node 1's subscriber after the release") { thereLog.count == 3 }
            #expect(thereLog.all.map(\.data) == hereLog.all.map(\.data))

            // Dropped: lost for good; a subscription made meanwhile reaches node 0 once the
            // dropping stops (node 1 sends its whole state again).
            await loopback.drop(true)
            try await TestHub.trigger(api, event: "e", channels: ["news"], data: #"{"n":"lost"}"#)
            try await eventually("node 0's subscriber") { hereLog.count == 4 }
            let late = ChannelClient(key: TestHub.key, options: TestHub.options(cluster.nodes[1].port))
            await late.connect()
            let lateNews = await late.subscribe("news")
            try await lateNews.subscribed()
            await loopback.drop(false)
            try await eventually("node 0 counts the subscription made while dropping") {
                try await api.signed("GET", "/apps/\(TestHub.appID)/channels/news", query: ["info": "subscription_count"]).json["subscription_count"] as? Int == 3
            }
            try await TestHub.trigger(api, event: "e", channels: ["news"], data: #"{"n":5}"#)
            try await eventually("the next event at node 1") { thereLog.count == 4 }
            #expect(thereLog.all.last?.data == #"{"n":5}"#, "the dropped event never arrives: \(thereLog.all.map(\.data))")
            for client in [here, there, late] { await client.disconnect() }
        }
    }
}

/// The Swift block of `LoopbackCluster`'s doc comment, compiled.
enum LoopbackDocExamples {
    static func loopbackClusterDocComment(configuration: HubConfiguration) async throws -> [HubServer] {
        // snippet: begin
        let cluster = LoopbackCluster()
        let a = try await HubServer.start(configuration, cluster: cluster.join())
        let b = try await HubServer.start(configuration, cluster: cluster.join())
        // snippet: end
        return [a, b]
    }
}

/// A node killed without a goodbye: the cluster's occupancy removes its members and vacates
/// its channels, told by a node that is alive.
@Suite("Loopback cluster: a killed node", .timeLimit(.minutes(2)))
struct LoopbackKilledNodeTests {
    @Test func aKilledNodesOnlyMemberIsRemovedAndItsChannelVacatedByTheOther() async throws {
        try await ClusterFixture.withWebhooks(.loopback, nodes: 2) { cluster, receiver in
            let loopback = try #require(cluster.loopback)
            let (watcher, _, changes) = try await cluster.client(ofNode: 0, token: TestHub.bob.token, subscribedTo: "presence-room")
            let (doomed, _, _) = try await cluster.client(ofNode: 1, token: TestHub.alice.token, subscribedTo: "presence-room")
            try await (await doomed.subscribe("news")).subscribed()
            try await eventually("alice's member_added") { receiver.events.contains(.memberAdded(channel: "presence-room", userID: "alice")) }
            try await eventually("news occupied") { receiver.events.contains(.channelOccupied(channel: "news")) }

            await loopback.kill(cluster.nodeIDs[1])
            let removed = try await first(changes, timeout: .seconds(10)) { if case .removed = $0 { true } else { false } }
            #expect(removed == .removed(PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#)))
            try await eventually("alice's member_removed") { receiver.events.contains(.memberRemoved(channel: "presence-room", userID: "alice")) }
            try await eventually("news vacated") { receiver.events.contains(.channelVacated(channel: "news")) }
            #expect(!receiver.events.contains(.channelVacated(channel: "presence-room")), "bob is still there")
            #expect(receiver.problems.isEmpty, "\(receiver.problems)")
            await watcher.disconnect()
        }
    }
}
