import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Three hubs on one throwaway PostgreSQL behave as one hub: events, client events, presence and
/// the channels API span the nodes (soketi's horizontal-adapter semantics).
@Suite("Cluster on PostgreSQL", .timeLimit(.minutes(3)))
struct ClusterTests {
    @Test func eventsPresenceAndTheChannelsAPISpanTheNodes() async throws {
        try await ClusterFixture.with(nodes: 3) { cluster in
            let alice = try await cluster.client(ofNode: 0, token: TestHub.alice.token)
            let bob = try await cluster.client(ofNode: 1, token: TestHub.bob.token)
            let carol = try await cluster.client(ofNode: 2, token: TestHub.carol.token)
            let apis = cluster.nodes.map(TestHTTP.init)

            let aliceRoom = await alice.subscribe("presence-room")
            let aliceChanges = aliceRoom.members
            let aliceChat = await alice.subscribe("private-chat")
            let aliceNews = await alice.subscribe("news")
            for channel in [aliceRoom, aliceChat, aliceNews] { try await channel.subscribed() }
            // Bob's node knows Alice before Bob arrives: his subscription lists her.
            try await eventually("node 1 listing alice", timeout: .seconds(15)) {
                try await TestHub.users(apis[1], channel: "presence-room") == ["alice"]
            }
            let bobRoom = await bob.subscribe("presence-room")
            let bobChat = await bob.subscribe("private-chat")
            let bobNews = await bob.subscribe("news")
            for channel in [bobRoom, bobChat, bobNews] { try await channel.subscribed() }
            #expect(Set(bobRoom.currentMembers.members.keys) == ["alice", "bob"])
            let added = try await first(aliceChanges, timeout: .seconds(10)) { if case .added = $0 { true } else { false } }
            #expect(added == .added(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)))
            let carolNews = await carol.subscribe("news")
            try await carolNews.subscribed()

            // The channels API of any node counts every node.
            try await eventually("node 2 counting every node's subscriptions", timeout: .seconds(15)) {
                let news = try await apis[2].signed("GET", "/apps/\(TestHub.appID)/channels/news", query: ["info": "subscription_count"]).json
                let rooms = try await apis[2].signed("GET", "/apps/\(TestHub.appID)/channels",
                                                     query: ["filter_by_prefix": "presence-", "info": "user_count"]).json
                let room = (rooms["channels"] as? [String: Any])?["presence-room"] as? [String: Any]
                return news["subscription_count"] as? Int == 3 && room?["user_count"] as? Int == 2
            }
            #expect(try await TestHub.users(apis[2], channel: "presence-room") == ["alice", "bob"])

            // An event through one node's HTTP API reaches every node's subscribers, once each.
            let logs = [aliceNews, bobNews, carolNews].map { EventLog($0, event: "headline") }
            try await TestHub.trigger(apis[0], event: "headline", channels: ["news"], data: #"{"n":1}"#)
            try await eventually("the headline on every node") { logs.allSatisfy { $0.count >= 1 } }
            // Longer than a notification may be: it crosses through the payload table.
            let long = String(repeating: "x", count: 9_000)
            try await TestHub.trigger(apis[1], event: "headline", channels: ["news"], data: #"{"n":2,"long":"\#(long)"}"#)
            try await eventually("the long headline on every node") { logs.allSatisfy { $0.count >= 2 } }
            try await Task.sleep(for: .milliseconds(500))
            for log in logs {
                #expect(log.count == 2, "each subscriber gets each event once")
                #expect(log.all.last?.data?.contains(long) == true)
            }

            // A client event crosses to the other nodes, never back to its sender (on a presence
            // channel, with the sender's user id).
            let toBob = [EventLog(bobChat, event: "client-hello"), EventLog(bobRoom, event: "client-hello")]
            let toAlice = [EventLog(aliceChat, event: "client-hello"), EventLog(aliceRoom, event: "client-hello")]
            try await aliceChat.trigger("client-hello", json: #"{"from":"alice"}"#)
            try await aliceRoom.trigger("client-hello", json: #"{"from":"alice"}"#)
            try await eventually("alice's client events at bob's node") { toBob.allSatisfy { $0.count == 1 } }
            #expect(toBob[1].all.first?.userID == "alice")
            try await Task.sleep(for: .milliseconds(300))
            #expect(toAlice.allSatisfy { $0.count == 0 })
            #expect(toBob.allSatisfy { $0.count == 1 })

            // Bob leaves: Alice's node tells her, every node's list loses him.
            await bob.disconnect()
            let removed = try await first(aliceChanges, timeout: .seconds(10)) { if case .removed = $0 { true } else { false } }
            #expect(removed == .removed(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)))
            try await eventually("node 2 forgetting bob") { try await TestHub.users(apis[2], channel: "presence-room") == ["alice"] }
            await alice.disconnect()
            await carol.disconnect()
        }
    }
}
