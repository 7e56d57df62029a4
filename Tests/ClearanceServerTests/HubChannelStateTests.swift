@testable import ClearanceServer
import Clearance
import ClearanceSigning
import Testing

@Suite("HubChannelState")
struct HubChannelStateTests {
    /// An outbox whose deliveries can be read back.
    final class Recorder: ConnectionSink {
        private let deliveries = Locked<[ConnectionOutbox.Delivery]>([])
        var outbox: ConnectionOutbox { ConnectionOutbox(sink: self) }

        func deliver(_ delivery: ConnectionOutbox.Delivery) { deliveries.withLock { $0.append(delivery) } }
        func close(_ code: HubCloseCode) {}
        func finish() {}

        /// Everything delivered so far.
        func drain() async -> [ConnectionOutbox.Delivery] {
            deliveries.withLock { $0 }
        }
    }

    /// Adds each socket id as a connection of the app `app` delivering to its recorder.
    private func connect(_ state: HubChannelState, _ connections: (String, Recorder)...) async {
        for (socketID, recorder) in connections { await state.addConnection(socketID: socketID, appID: "app", outbox: recorder.outbox) }
    }

    /// Subscribes `socketID` of the app `app` to `channel` (at most 100 presence members).
    private func subscribe(_ state: HubChannelState, _ socketID: String, _ channel: String, member: PresenceMember?) async -> SubscribeOutcome {
        await state.subscribe(socketID: socketID, appID: "app", channel: channel, member: member, maxPresenceMembers: 100)
    }

    private let alice = PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#)
    private let bob = PresenceMember(id: "bob", infoJSON: nil)

    @Test func subscriptionSucceededComesBeforeAnyMemberAdded() async {
        let state = HubChannelState(webhooks: nil)
        let first = Recorder(), second = Recorder()
        await connect(state, ("1.1", first), ("2.2", second))
        #expect(await subscribe(state, "1.1", "presence-room", member: alice) == .subscribed)
        #expect(await subscribe(state, "2.2", "presence-room", member: bob) == .subscribed)

        #expect(await first.drain() == [
            .subscriptionSucceeded(channel: "presence-room", members: [alice]),
            .memberAdded(channel: "presence-room", member: bob),
        ])
        #expect(await second.drain() == [.subscriptionSucceeded(channel: "presence-room", members: [alice, bob])])
    }

    @Test func publishSkipsTheExcludedSocketAndOtherApps() async {
        let state = HubChannelState(webhooks: nil)
        let a = Recorder(), b = Recorder(), other = Recorder()
        await connect(state, ("1.1", a), ("2.2", b))
        await state.addConnection(socketID: "3.3", appID: "other", outbox: other.outbox)
        for socketID in ["1.1", "2.2"] {
            _ = await subscribe(state, socketID, "news", member: nil)
        }
        _ = await state.subscribe(socketID: "3.3", appID: "other", channel: "news", member: nil, maxPresenceMembers: 100)
        await state.publish(appID: "app", channel: "news", frame: "F", excluding: "1.1")

        #expect(await a.drain() == [.subscriptionSucceeded(channel: "news", members: nil)])
        #expect(await b.drain() == [.subscriptionSucceeded(channel: "news", members: nil), .frame("F")])
        #expect(await other.drain() == [.subscriptionSucceeded(channel: "news", members: nil)])
    }

    @Test func removingTheLastConnectionOfAUserAnnouncesTheDeparture() async {
        let state = HubChannelState(webhooks: nil)
        let watcher = Recorder(), tab1 = Recorder(), tab2 = Recorder()
        await connect(state, ("1.1", watcher), ("2.1", tab1), ("2.2", tab2))
        _ = await subscribe(state, "1.1", "presence-x", member: alice)
        _ = await subscribe(state, "2.1", "presence-x", member: bob)
        _ = await subscribe(state, "2.2", "presence-x", member: bob)
        #expect(await state.channel(appID: "app", name: "presence-x") == ChannelSnapshot(name: "presence-x", subscriptionCount: 3, userCount: 2))

        await state.removeConnection(socketID: "2.1", appID: "app")
        await state.unsubscribe(socketID: "2.2", appID: "app", channel: "presence-x")
        #expect(await state.presenceMembers(appID: "app", channel: "presence-x") == [alice])

        #expect(await watcher.drain() == [
            .subscriptionSucceeded(channel: "presence-x", members: [alice]),
            .memberAdded(channel: "presence-x", member: bob),
            .memberRemoved(channel: "presence-x", userID: "bob"),
        ])
    }

    @Test func fullPresenceChannelsRefuseNewUsersButNotMoreConnectionsOfPresentOnes() async {
        let state = HubChannelState(webhooks: nil)
        for socketID in ["1.1", "1.2", "2.1"] {
            await state.addConnection(socketID: socketID, appID: "app", outbox: Recorder().outbox)
        }
        #expect(await state.subscribe(socketID: "1.1", appID: "app", channel: "presence-x", member: alice, maxPresenceMembers: 1) == .subscribed)
        #expect(await state.subscribe(socketID: "1.2", appID: "app", channel: "presence-x", member: alice, maxPresenceMembers: 1) == .subscribed)
        #expect(await state.subscribe(socketID: "2.1", appID: "app", channel: "presence-x", member: bob, maxPresenceMembers: 1) == .presenceChannelFull)
        #expect(await state.subscribe(socketID: "1.1", appID: "app", channel: "presence-x", member: alice, maxPresenceMembers: 1) == .alreadySubscribed)
        #expect(await state.subscribe(socketID: "9.9", appID: "app", channel: "presence-x", member: alice, maxPresenceMembers: 1) == .unknownConnection)
    }

    @Test func emptyChannelsDisappear() async {
        let state = HubChannelState(webhooks: nil)
        await state.addConnection(socketID: "1.1", appID: "app", outbox: Recorder().outbox)
        _ = await subscribe(state, "1.1", "a", member: nil)
        _ = await subscribe(state, "1.1", "b", member: nil)
        #expect(await state.channels(appID: "app").map(\.name) == ["a", "b"])
        await state.removeConnection(socketID: "1.1", appID: "app")
        #expect(await state.channels(appID: "app").isEmpty)
        #expect(await state.channel(appID: "app", name: "a") == nil)
    }
}
