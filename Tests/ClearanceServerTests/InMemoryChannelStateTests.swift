@testable import ClearanceServer
import ClearanceSigning
import Testing

@Suite("InMemoryChannelState")
struct InMemoryChannelStateTests {
    /// An outbox whose deliveries can be read back synchronously.
    final class Recorder: Sendable {
        let outbox: ConnectionOutbox
        private let stream: AsyncStream<ConnectionOutbox.Item>

        init() {
            let (stream, continuation) = AsyncStream<ConnectionOutbox.Item>.makeStream()
            self.stream = stream
            outbox = ConnectionOutbox(continuation: continuation) {}
        }

        /// Everything delivered so far.
        func drain() async -> [ConnectionOutbox.Delivery] {
            outbox.finish()
            var deliveries: [ConnectionOutbox.Delivery] = []
            for await item in stream {
                if case let .delivery(delivery) = item { deliveries.append(delivery) }
            }
            return deliveries
        }
    }

    private let alice = PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#)
    private let bob = PresenceMember(id: "bob", infoJSON: nil)

    @Test func subscriptionSucceededComesBeforeAnyMemberAdded() async {
        let state = InMemoryChannelState()
        let first = Recorder(), second = Recorder()
        await state.addConnection(socketID: "1.1", appID: "app", outbox: first.outbox)
        await state.addConnection(socketID: "2.2", appID: "app", outbox: second.outbox)
        #expect(await state.subscribe(socketID: "1.1", appID: "app", channel: "presence-room", member: alice, maxPresenceMembers: 100) == .subscribed)
        #expect(await state.subscribe(socketID: "2.2", appID: "app", channel: "presence-room", member: bob, maxPresenceMembers: 100) == .subscribed)

        #expect(await first.drain() == [
            .subscriptionSucceeded(channel: "presence-room", members: [alice]),
            .memberAdded(channel: "presence-room", member: bob),
        ])
        #expect(await second.drain() == [.subscriptionSucceeded(channel: "presence-room", members: [alice, bob])])
    }

    @Test func publishSkipsTheExcludedSocketAndOtherApps() async {
        let state = InMemoryChannelState()
        let a = Recorder(), b = Recorder(), other = Recorder()
        await state.addConnection(socketID: "1.1", appID: "app", outbox: a.outbox)
        await state.addConnection(socketID: "2.2", appID: "app", outbox: b.outbox)
        await state.addConnection(socketID: "3.3", appID: "other", outbox: other.outbox)
        for socketID in ["1.1", "2.2"] {
            _ = await state.subscribe(socketID: socketID, appID: "app", channel: "news", member: nil, maxPresenceMembers: 100)
        }
        _ = await state.subscribe(socketID: "3.3", appID: "other", channel: "news", member: nil, maxPresenceMembers: 100)
        await state.publish(appID: "app", channel: "news", frame: "F", excluding: "1.1")

        #expect(await a.drain() == [.subscriptionSucceeded(channel: "news", members: nil)])
        #expect(await b.drain() == [.subscriptionSucceeded(channel: "news", members: nil), .frame("F")])
        #expect(await other.drain() == [.subscriptionSucceeded(channel: "news", members: nil)])
    }

    @Test func removingTheLastConnectionOfAUserAnnouncesTheDeparture() async {
        let state = InMemoryChannelState()
        let watcher = Recorder(), tab1 = Recorder(), tab2 = Recorder()
        await state.addConnection(socketID: "1.1", appID: "app", outbox: watcher.outbox)
        await state.addConnection(socketID: "2.1", appID: "app", outbox: tab1.outbox)
        await state.addConnection(socketID: "2.2", appID: "app", outbox: tab2.outbox)
        _ = await state.subscribe(socketID: "1.1", appID: "app", channel: "presence-x", member: alice, maxPresenceMembers: 100)
        _ = await state.subscribe(socketID: "2.1", appID: "app", channel: "presence-x", member: bob, maxPresenceMembers: 100)
        _ = await state.subscribe(socketID: "2.2", appID: "app", channel: "presence-x", member: bob, maxPresenceMembers: 100)
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
        let state = InMemoryChannelState()
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
        let state = InMemoryChannelState()
        await state.addConnection(socketID: "1.1", appID: "app", outbox: Recorder().outbox)
        _ = await state.subscribe(socketID: "1.1", appID: "app", channel: "a", member: nil, maxPresenceMembers: 100)
        _ = await state.subscribe(socketID: "1.1", appID: "app", channel: "b", member: nil, maxPresenceMembers: 100)
        #expect(await state.channels(appID: "app").map(\.name) == ["a", "b"])
        await state.removeConnection(socketID: "1.1", appID: "app")
        #expect(await state.channels(appID: "app").isEmpty)
        #expect(await state.channel(appID: "app", name: "a") == nil)
    }
}
