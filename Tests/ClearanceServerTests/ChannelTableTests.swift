@testable import ClearanceServer
import ClearanceSigning
import Testing

/// What one node of a cluster sees: its own connections plus what the other nodes report.
@Suite("ChannelTable across nodes")
struct ChannelTableTests {
    typealias Recorder = HubChannelStateTests.Recorder
    private let room = ChannelTable.Key(appID: "app", name: "presence-room")
    private let alice = PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#)
    private let bob = PresenceMember(id: "bob", infoJSON: nil)

    /// Adds Bob in the presence room as the local connection "1.1"; returns his recorder.
    private func bobWatching(in table: inout ChannelTable) -> Recorder {
        let watcher = Recorder()
        table.addConnection(socketID: "1.1", appID: "app", outbox: watcher.outbox)
        _ = table.subscribe(socketID: "1.1", appID: "app", channel: "presence-room", member: bob, maxPresenceMembers: 100)
        return watcher
    }

    @Test func subscribingListsEveryNodesMembersAndReportsTheChanges() async {
        var table = ChannelTable()
        table.apply(.memberJoined(room, alice), from: "node-b")
        table.apply(.subscriptions(room, count: 1), from: "node-b")
        let local = Recorder()
        table.addConnection(socketID: "1.1", appID: "app", outbox: local.outbox)
        let (outcome, changes, _) = table.subscribe(socketID: "1.1", appID: "app", channel: "presence-room", member: bob, maxPresenceMembers: 100)
        #expect(outcome == .subscribed)
        #expect(changes == [.subscriptions(room, count: 1), .memberJoined(room, bob)])
        #expect(await local.drain() == [.subscriptionSucceeded(channel: "presence-room", members: [bob, alice])])
        #expect(table.channel(appID: "app", name: "presence-room") == ChannelSnapshot(name: "presence-room", subscriptionCount: 2, userCount: 2))
    }

    @Test func aUserIsAddedOnceAndRemovedOnlyWhenNoNodeHasThemAnyMore() async {
        var table = ChannelTable()
        let watcher = bobWatching(in: &table)
        table.apply(.memberJoined(room, alice), from: "node-b")
        table.apply(.memberJoined(room, alice), from: "node-c")
        table.apply(.memberLeft(room, userID: "alice"), from: "node-b")
        table.apply(.memberLeft(room, userID: "alice"), from: "node-c")
        #expect(await watcher.drain() == [
            .subscriptionSucceeded(channel: "presence-room", members: [bob]),
            .memberAdded(channel: "presence-room", member: alice),
            .memberRemoved(channel: "presence-room", userID: "alice"),
        ])
    }

    @Test func aLocalUserAlsoPresentElsewhereIsNeitherAddedNorRemoved() async {
        var table = ChannelTable()
        let watcher = bobWatching(in: &table)
        table.addConnection(socketID: "2.2", appID: "app", outbox: Recorder().outbox)
        table.apply(.memberJoined(room, alice), from: "node-b")
        _ = table.subscribe(socketID: "2.2", appID: "app", channel: "presence-room", member: alice, maxPresenceMembers: 100)
        let changes = table.removeConnection(socketID: "2.2", appID: "app")
        #expect(changes == [.subscriptions(room, count: 1), .memberLeft(room, userID: "alice")])
        #expect(await watcher.drain() == [
            .subscriptionSucceeded(channel: "presence-room", members: [bob]),
            .memberAdded(channel: "presence-room", member: alice),
        ])
    }

    @Test func thePresenceLimitCountsEveryNode() {
        var table = ChannelTable()
        table.apply(.memberJoined(room, alice), from: "node-b")
        table.addConnection(socketID: "1.1", appID: "app", outbox: Recorder().outbox)
        table.addConnection(socketID: "2.2", appID: "app", outbox: Recorder().outbox)
        #expect(table.subscribe(socketID: "1.1", appID: "app", channel: "presence-room", member: bob, maxPresenceMembers: 1).0 == .presenceChannelFull)
        // Alice is already a member (elsewhere): her connection here does not count again.
        #expect(table.subscribe(socketID: "2.2", appID: "app", channel: "presence-room", member: alice, maxPresenceMembers: 1).0 == .subscribed)
    }

    @Test func replacingANodesStateReportsOnlyRealArrivalsAndDepartures() async {
        var table = ChannelTable()
        let watcher = bobWatching(in: &table)
        table.apply(.memberJoined(room, alice), from: "node-b")
        var same = ChannelTable.NodeState()
        same.members[room] = [alice]
        same.subscriptions[room] = 1
        table.replace(node: "node-b", with: same)
        table.replace(node: "node-b", with: ChannelTable.NodeState())
        #expect(table.remoteNodes.isEmpty)
        #expect(await watcher.drain() == [
            .subscriptionSucceeded(channel: "presence-room", members: [bob]),
            .memberAdded(channel: "presence-room", member: alice),
            .memberRemoved(channel: "presence-room", userID: "alice"),
        ])
    }

    @Test func theChannelsListCoversChannelsOccupiedOnlyElsewhere() {
        var table = ChannelTable()
        table.addConnection(socketID: "1.1", appID: "app", outbox: Recorder().outbox)
        _ = table.subscribe(socketID: "1.1", appID: "app", channel: "news", member: nil, maxPresenceMembers: 100)
        table.apply(.subscriptions(.init(appID: "app", name: "news"), count: 2), from: "node-b")
        table.apply(.subscriptions(.init(appID: "app", name: "sport"), count: 1), from: "node-c")
        table.apply(.subscriptions(.init(appID: "other", name: "weather"), count: 1), from: "node-c")
        #expect(table.channels(appID: "app") == [
            ChannelSnapshot(name: "news", subscriptionCount: 3, userCount: nil),
            ChannelSnapshot(name: "sport", subscriptionCount: 1, userCount: nil),
        ])
        table.apply(.subscriptions(.init(appID: "app", name: "sport"), count: 0), from: "node-c")
        #expect(table.channel(appID: "app", name: "sport") == nil)
        #expect(table.localState.subscriptions == [.init(appID: "app", name: "news"): 1])
    }
}
