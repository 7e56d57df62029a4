import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import Testing

/// Cache channels in a cluster of real `clearance serve --backplane`: the cache is shared.
@Suite("Cache channels across a cluster", .timeLimit(.minutes(3)))
struct ClusterCacheChannelTests {
    @Test func everyNodeServesTheEventAnotherNodeKeptAlsoANodeThatJoinsLater() async throws {
        try await ServeCluster.withTwoNodes { nodeA, nodeB, cluster in
            // Nobody is subscribed anywhere when node A keeps the event.
            try await TestHub.trigger(nodeA.http, event: "price", channels: ["cache-prices"], data: #"{"v":1}"#)
            try await TestHub.trigger(nodeA.http, event: "price", channels: ["cache-prices"], data: #"{"v":2}"#)
            try await eventually("node B serves node A's last event", timeout: .seconds(15)) {
                try await Self.firstEvent(port: nodeB.port, channel: "cache-prices") == #"price {"v":2}"#
            }
            #expect(try await Self.firstEvent(port: nodeB.port, channel: "cache-nothing") == "pusher:cache_miss")

            // A node that joins afterwards learns the cache from the others.
            try await ServeCluster.withNode(environment: cluster) { nodeC in
                try await eventually("node C serves it too", timeout: .seconds(15)) {
                    try await Self.firstEvent(port: nodeC.port, channel: "cache-prices") == #"price {"v":2}"#
                }
            }
        }
    }

    /// What a new subscriber of `channel` on the node at `port` gets first after its subscription:
    /// `NAME DATA` for an event, or the cache miss's name.
    static func firstEvent(port: Int, channel: String) async throws -> String {
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(port))
        let subscription = await client.subscribe(channel)
        let events = subscription.events
        await client.connect()
        let event = try await first(events) { $0.name != "pusher:subscription_succeeded" }
        await client.disconnect()
        return event.isCacheMiss ? event.name : "\(event.name) \(event.data ?? "")"
    }
}
