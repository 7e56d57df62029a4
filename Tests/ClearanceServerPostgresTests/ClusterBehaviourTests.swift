import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// One suite of cluster behaviours, run on every cluster transport: in memory
/// (``LoopbackCluster``) and on a throwaway PostgreSQL (``PostgresCluster``). Hubs on either
/// behave as one hub: events, client events, presence and the channels API, who is online,
/// subscription counts, cache channels, terminations, occupancy and member webhooks span the
/// nodes; a partition heals, and a node that leaves takes its members with it (soketi's
/// horizontal-adapter semantics).
@Suite("Cluster behaviours, on every transport", .timeLimit(.minutes(3)))
struct ClusterBehaviourTests {
    @Test(arguments: ClusterDriver.allCases)
    func eventsPresenceAndTheChannelsAPISpanTheNodes(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.with(driver, nodes: 3) { cluster in
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
            // The positive control: a marker after each headline, through the same node. A node
            // delivers what one node sends in order, so a second copy of either headline would
            // have come before its marker.
            let markers = [aliceNews, bobNews, carolNews].map { EventLog($0, event: "marker") }
            try await TestHub.trigger(apis[0], event: "marker", channels: ["news"], data: #"{"after":1}"#)
            try await TestHub.trigger(apis[1], event: "marker", channels: ["news"], data: #"{"after":2}"#)
            try await eventually("both markers on every node") { markers.allSatisfy { $0.count == 2 } }
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
            // The positive control: another client event of alice's, after the first, at bob's
            // node; a copy of the first back to alice would have come before her second.
            let markersAtBob = [EventLog(bobChat, event: "client-marker"), EventLog(bobRoom, event: "client-marker")]
            try await aliceChat.trigger("client-marker", json: "{}")
            try await aliceRoom.trigger("client-marker", json: "{}")
            try await eventually("alice's markers at bob's node") { markersAtBob.allSatisfy { $0.count == 1 } }
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

    @Test(arguments: ClusterDriver.allCases)
    func onlineAndOfflineSpanTheNodes(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.with(driver, nodes: 2) { cluster in
            let alice = try await ClusterWatchlistTests.signedIn(as: "alice", watching: ["bob"], port: cluster.nodes[0].port)
            let bob = try await ClusterWatchlistTests.signedIn(as: "bob", port: cluster.nodes[1].port)
            try await alice.expect([.online: ["bob"]])
            await bob.client.disconnect()
            try await alice.expect([.online: ["bob"], .offline: ["bob"]])
        }
    }

    @Test(arguments: ClusterDriver.allCases)
    func subscriptionCountsAddUpAcrossTheNodes(_ driver: ClusterDriver) async throws {
        let configuration = TestHub.configuration(adjustApp: { $0.subscriptionCount = true })
        try await ClusterFixture.with(driver, nodes: 2, configuration: configuration) { cluster in
            let watcher = ChannelClient(key: TestHub.key, options: TestHub.options(cluster.nodes[0].port))
            await watcher.connect()
            let lobby = await watcher.subscribe("lobby")
            try await lobby.subscribed()
            var others: [ChannelClient] = []
            for _ in 0..<3 {
                let client = ChannelClient(key: TestHub.key, options: TestHub.options(cluster.nodes[1].port))
                await client.connect()
                try await (await client.subscribe("lobby")).subscribed()
                others.append(client)
            }
            try await eventually("the count across both nodes", timeout: .seconds(15)) { lobby.subscriptionCount == 4 }
            await others[0].disconnect()
            try await eventually("one fewer", timeout: .seconds(15)) { lobby.subscriptionCount == 3 }
            for client in others { await client.disconnect() }
            await watcher.disconnect()
        }
    }

    @Test(arguments: ClusterDriver.allCases)
    func everyNodeServesTheCacheChannelsLastEvent(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.with(driver, nodes: 2) { cluster in
            // Nobody is subscribed anywhere when node 0 keeps the event.
            try await TestHub.trigger(cluster.nodes[0], event: "price", channels: ["cache-prices"], data: #"{"v":1}"#)
            try await TestHub.trigger(cluster.nodes[0], event: "price", channels: ["cache-prices"], data: #"{"v":2}"#)
            try await eventually("node 1 serves node 0's last event", timeout: .seconds(15)) {
                try await ClusterCacheChannelTests.firstEvent(port: cluster.nodes[1].port, channel: "cache-prices") == #"price {"v":2}"#
            }
            #expect(try await ClusterCacheChannelTests.firstEvent(port: cluster.nodes[1].port, channel: "cache-nothing") == "pusher:cache_miss")
        }
    }

    @Test(arguments: ClusterDriver.allCases)
    func aTerminateClosesTheUsersConnectionsOnEveryNode(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.with(driver, nodes: 2) { cluster in
            let alice = try await ClusterTerminateTests.signedIn(as: "alice", port: cluster.nodes[1].port)
            let bob = try await ClusterTerminateTests.signedIn(as: "bob", port: cluster.nodes[1].port)
            let response = try await TestHTTP(cluster.nodes[0]).signed("POST", "/apps/\(TestHub.appID)/users/alice/terminate_connections", body: "{}")
            #expect(response.status == 200)
            try await eventually("alice's connection on node 1 closed", timeout: .seconds(15)) { await alice.state.isTerminal }
            guard case .failed(let error) = await alice.state else { throw ChildProcess.Failure("alice: \(await alice.state)") }
            #expect(error.closeCode == 4009)
            // Bob, on the same node, stays: a ping answered after alice's close.
            _ = try await bob.signIn()
            #expect(await !bob.state.isTerminal)
            await bob.disconnect()
        }
    }

    @Test(arguments: ClusterDriver.allCases)
    func occupancyAndMemberWebhooksAreSentOnceForTheCluster(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.withWebhooks(driver, nodes: 2) { cluster, receiver in
            let first = try await cluster.client(ofNode: 0, token: TestHub.alice.token)
            let second = try await cluster.client(ofNode: 1, token: TestHub.alice.token)
            try await (await first.subscribe("news")).subscribed()
            try await eventually("channel_occupied") { receiver.events.contains(.channelOccupied(channel: "news")) }
            // Alice's second connection, on the other node, joins and leaves at the same
            // moment as her first: the cluster decides, once (no node's own view can).
            try await (await second.subscribe("news")).subscribed()
            async let firstJoins: Void = try await first.subscribe("presence-room").subscribed()
            async let secondJoins: Void = try await second.subscribe("presence-room").subscribed()
            _ = try await (firstJoins, secondJoins)
            // Both nodes' joins are in the cluster's ledger before they leave (each node records
            // its own changes in order, but a loaded node may record its join after the other
            // node's leave: then alice did leave the cluster's view in between, and came back).
            // "news" and "presence-room" on each node, and alice on each: six places.
            try await cluster.occupancyRecorded(rows: 6)
            async let firstLeaves: Void = await first.disconnect()
            async let secondLeaves: Void = await second.disconnect()
            _ = await (firstLeaves, secondLeaves)
            try await eventually("channel_vacated") { receiver.events.contains(.channelVacated(channel: "news")) }
            try await eventually("member_removed") { receiver.events.contains(.memberRemoved(channel: "presence-room", userID: "alice")) }
            // Positive controls from each node: a duplicate would have been sent before them.
            for node in 0..<2 {
                let control = ChannelClient(key: TestHub.key, options: TestHub.options(cluster.nodes[node].port))
                await control.connect()
                try await (await control.subscribe("control-\(node)")).subscribed()
                try await eventually("node \(node)'s control") { receiver.events.contains(.channelOccupied(channel: "control-\(node)")) }
                await control.disconnect()
            }
            let news = receiver.events.filter { [.channelOccupied(channel: "news"), .channelVacated(channel: "news")].contains($0) }
            #expect(news == [.channelOccupied(channel: "news"), .channelVacated(channel: "news")])
            let members = receiver.events.filter {
                [.memberAdded(channel: "presence-room", userID: "alice"), .memberRemoved(channel: "presence-room", userID: "alice")].contains($0)
            }
            #expect(members == [.memberAdded(channel: "presence-room", userID: "alice"), .memberRemoved(channel: "presence-room", userID: "alice")])
            #expect(receiver.problems.isEmpty, "\(receiver.problems)")
        }
    }

    @Test(arguments: ClusterDriver.allCases)
    func afterAPartitionHealsTheNodesAgreeAgain(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.with(driver, nodes: 2) { cluster in
            let apis = cluster.nodes.map(TestHTTP.init)
            let alice = try await cluster.client(ofNode: 0, token: TestHub.alice.token)
            let bob = try await cluster.client(ofNode: 1, token: TestHub.bob.token)
            try await (await alice.subscribe("presence-room")).subscribed()
            try await (await bob.subscribe("presence-room")).subscribed()
            let aliceNews = await alice.subscribe("news")
            let bobNews = await bob.subscribe("news")
            for channel in [aliceNews, bobNews] { try await channel.subscribed() }
            try await eventually("node 0 listing both", timeout: .seconds(15)) { try await TestHub.users(apis[0], channel: "presence-room") == ["alice", "bob"] }

            try await cluster.partition()
            // Each node serves its own clients meanwhile.
            let carol = try await cluster.client(ofNode: 1, token: TestHub.carol.token)
            try await (await carol.subscribe("presence-room")).subscribed()
            #expect(try await TestHub.users(apis[1], channel: "presence-room").contains("carol"))
            let aliceLog = EventLog(aliceNews, event: "local")
            try await TestHub.trigger(apis[0], event: "local", channels: ["news"], data: "{}")
            try await eventually("node 0's own subscriber") { aliceLog.count == 1 }

            try await cluster.heal()
            try await eventually("node 0 learns what node 1 did meanwhile", timeout: .seconds(30)) {
                try await TestHub.users(apis[0], channel: "presence-room") == ["alice", "bob", "carol"]
            }
            let bobLog = EventLog(bobNews, event: "after")
            try await eventually("an event from node 0 at node 1 again", timeout: .seconds(30)) {
                try await TestHub.trigger(apis[0], event: "after", channels: ["news"], data: "{}")
                return (try? await eventually("at node 1", timeout: .seconds(1)) { bobLog.count > 0 }) != nil
            }
            for client in [alice, bob, carol] { await client.disconnect() }
        }
    }

    @Test(arguments: ClusterDriver.allCases)
    func aNodeThatLeavesTakesItsMembersWithIt(_ driver: ClusterDriver) async throws {
        try await ClusterFixture.with(driver, nodes: 2) { cluster in
            let api = TestHTTP(cluster.nodes[0])
            let (alice, _, changes) = try await cluster.client(ofNode: 0, token: TestHub.alice.token, subscribedTo: "presence-room")
            _ = try await cluster.client(ofNode: 1, token: TestHub.bob.token, subscribedTo: "presence-room")
            try await eventually("node 0 listing both", timeout: .seconds(15)) { try await TestHub.users(api, channel: "presence-room") == ["alice", "bob"] }

            await cluster.nodes[1].stop()
            let removed = try await first(changes, timeout: .seconds(15)) { if case .removed = $0 { true } else { false } }
            #expect(removed == .removed(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)))
            #expect(try await TestHub.users(api, channel: "presence-room") == ["alice"])
            await alice.disconnect()
        }
    }
}
