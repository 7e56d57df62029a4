@testable import ClearanceServer
import Clearance
import ClearanceWire
import Foundation
import ClearanceTestSupport
import Testing

/// A cluster's history on each node (`ChannelTable+ClusterHistory.swift`): events numbered once
/// for the cluster reach each node's subscribers in serial order whatever order they arrive in,
/// none twice; a gap is read from the cluster's history; too long a wait closes the channel's
/// subscribers with 4200 so that they resume.
@Suite("Cluster history order")
struct ClusterHistoryOrderTests {
    /// A cluster's history in memory, whose appends finish in a random order.
    actor MemoryHistory: ClusterHistory {
        private var streams: [ChannelTable.Key: (name: String, events: [ClusterHistoryRead.Event])] = [:]
        private var made = 0

        func append(
            _ frame: String, appID: String, channel: String, excluding: String?, keeping configuration: ChannelHistoryConfiguration
        ) async throws -> HistoryPosition {
            let key = ChannelTable.Key(appID: appID, name: channel)
            var stream = streams[key] ?? { made += 1; return ("cluster-\(made)", []) }()
            let serial = (stream.events.last?.serial ?? 0) + 1
            stream.events.append(ClusterHistoryRead.Event(serial: serial, frame: frame, excluding: excluding))
            streams[key] = stream
            // Committed; the caller hears of it some time later (a database's answer).
            for _ in 0..<Int.random(in: 0...3) { await Task.yield() }
            return HistoryPosition(stream: stream.name, serial: serial)
        }

        func read(appID: String, channel: String, after: HistoryPosition?, keeping configuration: ChannelHistoryConfiguration) async throws
            -> ClusterHistoryRead
        {
            let key = ChannelTable.Key(appID: appID, name: channel)
            let stream = streams[key] ?? { made += 1; return ("cluster-\(made)", []) }()
            streams[key] = stream
            let position = HistoryPosition(stream: stream.name, serial: stream.events.last?.serial ?? 0)
            guard let after, after.stream == stream.name else { return ClusterHistoryRead(position: position, events: []) }
            return ClusterHistoryRead(position: position, events: stream.events.filter { $0.serial > after.serial })
        }

        func maintain(_ settings: ChannelHistory.Settings, subscribed: [ChannelTable.Key]) async throws -> [ChannelTable.Key: HistoryPosition] {
            var positions: [ChannelTable.Key: HistoryPosition] = [:]
            for key in subscribed {
                if let stream = streams[key] { positions[key] = HistoryPosition(stream: stream.name, serial: stream.events.last?.serial ?? 0) }
            }
            return positions
        }
    }

    final class Recorder: ConnectionSink {
        private let deliveries = Locked<[ConnectionOutbox.Delivery]>([])
        let closed = Locked<[HubCloseCode]>([])
        var outbox: ConnectionOutbox { ConnectionOutbox(sink: self) }

        func deliver(_ delivery: ConnectionOutbox.Delivery) { deliveries.withLock { $0.append(delivery) } }
        func close(_ code: HubCloseCode) { closed.withLock { $0.append(code) } }
        func finish() {}

        var frames: [[String: Any]] {
            deliveries.withLock { $0 }.map { delivery in
                (try? JSONSerialization.jsonObject(with: Data(delivery.text.utf8))) as? [String: Any] ?? [:]
            }
        }

        /// The serials of the events delivered, in order.
        var serials: [Int] { frames.filter { $0["event"] as? String == "e" }.compactMap { $0["serial"] as? Int } }
    }

    static let settings = ChannelHistory.Settings(apps: ["app": ChannelHistoryConfiguration(size: 10_000, ttl: 120)])

    static func event(_ index: Int) -> String {
        PusherFrame.event(name: "e", channel: "orders", data: "\(index)")
    }

    private static func kept(_ serial: Int, stream: String = "s") -> ChannelTable.KeptEvent {
        let position = HistoryPosition(stream: stream, serial: serial)
        return ChannelTable.KeptEvent(
            key: ChannelTable.Key(appID: "app", name: "orders"), position: position,
            frame: ChannelHistory.stamped(event(serial), at: position), excluding: nil, cached: nil)
    }

    /// A node's table whose channel has the cluster's stream "s" at 0, and a subscriber of it.
    private static func subscribedTable() -> (ChannelTable, Recorder) {
        var table = ChannelTable()
        table.history.update(Self.settings, now: .now)
        let subscriber = Recorder()
        table.addConnection(socketID: "1.1", appID: "app", outbox: subscriber.outbox)
        table.history.adopt(HistoryPosition(stream: "s", serial: 0), for: ChannelTable.Key(appID: "app", name: "orders"), now: .now)
        _ = table.subscribe(socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
        return (table, subscriber)
    }

    @Test func eventsThatArriveAheadWaitForTheEarlierOneAndRepeatsAreDropped() {
        var (table, subscriber) = Self.subscribedTable()
        let policy = EventCachePolicy(ttl: .seconds(60), maxChannels: 10)

        #expect(table.accept(Self.kept(3), policy: policy) == .waiting)
        #expect(table.accept(Self.kept(2), policy: policy) == .waiting)
        #expect(subscriber.serials.isEmpty)
        #expect(table.accept(Self.kept(1), policy: policy) == .delivered(count: 2))
        #expect(table.accept(Self.kept(2), policy: policy) == .repeated)
        #expect(table.accept(Self.kept(4), policy: policy) == .delivered(count: 0))
        #expect(subscriber.serials == [1, 2, 3, 4])
        #expect(table.waiting.isEmpty)

        // Another stream (the cluster's history was lost): the channel starts again from it.
        #expect(table.accept(Self.kept(7, stream: "t"), policy: policy) == .delivered(count: 0))
        #expect(table.history.current(ChannelTable.Key(appID: "app", name: "orders")) == HistoryPosition(stream: "t", serial: 7))
        #expect(subscriber.closed.withLock { $0 }.isEmpty)
    }

    @Test func tooLongAWaitClosesTheChannelsSubscribersWith4200AndGoesOnFromWhatWaited() {
        var (table, subscriber) = Self.subscribedTable()
        let policy = EventCachePolicy(ttl: .seconds(60), maxChannels: 10)

        // Serial 1 never comes.
        for serial in 2...(HistoryWaiting.maxEvents + 1) { #expect(table.accept(Self.kept(serial), policy: policy) == .waiting) }
        #expect(subscriber.closed.withLock { $0 }.isEmpty)
        #expect(table.accept(Self.kept(HistoryWaiting.maxEvents + 2), policy: policy) == .overflowed)
        #expect(subscriber.closed.withLock { $0 } == [.reconnectImmediately])
        #expect(table.waiting.isEmpty)
        #expect(table.history.current(ChannelTable.Key(appID: "app", name: "orders"))?.serial == HistoryWaiting.maxEvents + 2)
        #expect(table.accept(Self.kept(HistoryWaiting.maxEvents + 3), policy: policy) == .delivered(count: 0))
    }

    /// Two nodes of a loopback cluster sharing `history`: runs `body` with their states, then
    /// shuts them down.
    private static func withTwoNodes(
        _ cluster: LoopbackCluster, history: MemoryHistory, _ body: (HubChannelState, HubChannelState) async throws -> Void
    ) async throws {
        func node() -> HubChannelState {
            let drivers = cluster.join()
            return HubChannelState(
                webhooks: nil, cluster: ClusterDrivers(transport: drivers.transport, history: history), history: Self.settings)
        }
        let (a, b) = (node(), node())
        let runs = [Task { try await a.run() }, Task { try await b.run() }]
        try await withCleanup {
            // Linked: each has the other's whole state (a message sent before is lost).
            try await eventually("the two nodes linked") {
                let known = (await a.lastHeard.count, await b.lastHeard.count)
                return known == (1, 1)
            }
            try await body(a, b)
        } cleanup: {
            await a.shutdown()
            await b.shutdown()
            for run in runs { _ = try? await run.value }
        }
    }

    @Test func eventsPublishedThroughTwoNodesAtOnceReachEverySubscriberOnceInSerialOrder() async throws {
        for trial in 0..<20 {
            let cluster = LoopbackCluster()
            try await Self.withTwoNodes(cluster, history: MemoryHistory()) { a, b in
                let (onA, onB) = (Recorder(), Recorder())
                await a.addConnection(socketID: "1.\(trial)", appID: "app", outbox: onA.outbox)
                await b.addConnection(socketID: "2.\(trial)", appID: "app", outbox: onB.outbox)
                _ = await a.subscribe(socketID: "1.\(trial)", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
                _ = await b.subscribe(socketID: "2.\(trial)", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
                let count = 100
                await withTaskGroup(of: Void.self) { group in
                    for index in 1...count {
                        group.addTask { await (index.isMultiple(of: 2) ? a : b).publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }
                    }
                }
                try await eventually("every event on both nodes") { onA.serials.count == count && onB.serials.count == count }
                #expect(onA.serials == Array(1...count), "trial \(trial)")
                #expect(onB.serials == Array(1...count), "trial \(trial)")
            }
        }
    }

    /// A subscriber of the channel on node B that got its first event, published through node A.
    private static func subscriberOnB(_ a: HubChannelState, _ b: HubChannelState) async throws -> Recorder {
        let onB = Recorder()
        await b.addConnection(socketID: "2.1", appID: "app", outbox: onB.outbox)
        _ = await b.subscribe(socketID: "2.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
        await a.publish(appID: "app", channel: "orders", frame: Self.event(1), excluding: nil)
        try await eventually("the first event on node B") { onB.serials == [1] }
        return onB
    }

    @Test func eventsLostOnTheWayBetweenNodesAreReadFromTheClusterHistoryInOrder() async throws {
        let cluster = LoopbackCluster()
        try await Self.withTwoNodes(cluster, history: MemoryHistory()) { a, b in
            let onB = try await Self.subscriberOnB(a, b)
            await cluster.drop(true)
            for index in 2...5 { await a.publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }
            await cluster.drop(false)
            await a.publish(appID: "app", channel: "orders", frame: Self.event(6), excluding: nil)
            try await eventually("the event after the gap arrived and waits") { await b.table.waiting.isEmpty == false }
            #expect(onB.serials == [1], "nothing out of order")

            // A round of the hub's purge reads what is missing.
            await b.purgeHistory(waitingSince: .now)
            #expect(onB.serials == Array(1...6))
            #expect(onB.frames.filter { $0["event"] as? String == "e" }.compactMap { $0["data"] as? String } == (1...6).map { "\($0)" })
            #expect(onB.closed.withLock { $0 }.isEmpty)
        }
    }

    /// The loopback cluster loses what is sent while it drops, however late its queue gets to it
    /// (the test above stops dropping right after sending: on a loaded machine the queue had not
    /// got to the lost events yet, delivered them all, and no gap ever waited).
    @Test func whatIsSentWhileDroppingIsLostEvenWhenTheQueueGetsToItLater() async throws {
        let cluster = LoopbackCluster()
        try await Self.withTwoNodes(cluster, history: MemoryHistory()) { a, b in
            let onB = try await Self.subscriberOnB(a, b)
            cluster.hold()
            await cluster.drop(true)
            await a.publish(appID: "app", channel: "orders", frame: Self.event(2), excluding: nil)
            await cluster.drop(false)
            cluster.release()
            await a.publish(appID: "app", channel: "orders", frame: Self.event(3), excluding: nil)
            try await eventually("the event after the lost one arrived and waits") { await b.table.waiting.isEmpty == false }
            #expect(onB.serials == [1], "the event sent while dropping was lost")
        }
    }

    @Test func aChannelsLastEventsLostOnTheWayAreReadAtTheSecondUpkeepRoundThatFindsTheNodeBehind() async throws {
        let cluster = LoopbackCluster()
        try await Self.withTwoNodes(cluster, history: MemoryHistory()) { a, b in
            let onB = try await Self.subscriberOnB(a, b)
            // The channel's last events are lost, and no later one comes to show the gap.
            await cluster.drop(true)
            for index in 2...3 { await a.publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }
            await cluster.drop(false)
            await b.purgeHistory(waitingSince: .now)
            #expect(onB.serials == [1], "nothing waits: no round of the purge can see it")

            // The first upkeep round finds node B behind (events may be on their way); the next, still
            // at the same serial, reads them.
            await b.maintainClusterHistory()
            #expect(onB.serials == [1])
            await b.maintainClusterHistory()
            #expect(onB.serials == [1, 2, 3])
            await b.maintainClusterHistory()
            #expect(onB.serials == [1, 2, 3], "none twice")
        }
    }

    @Test func aClientThatSawMoreOnAnotherNodeThanThisNodeHasRecoversThere() async throws {
        let cluster = LoopbackCluster()
        try await Self.withTwoNodes(cluster, history: MemoryHistory()) { a, b in
            let onB = try await Self.subscriberOnB(a, b)
            let onA = Recorder()
            await a.addConnection(socketID: "1.1", appID: "app", outbox: onA.outbox)
            _ = await a.subscribe(socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
            // Node B misses 2 and 3; node A's subscriber has them.
            await cluster.drop(true)
            for index in 2...3 { await a.publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }
            await cluster.drop(false)
            #expect(onA.serials == [2, 3])
            let stream = try #require(onA.frames.last?["stream"] as? String)

            // Its connection moves to node B, which is still at 1.
            let moved = Recorder()
            await b.addConnection(socketID: "2.2", appID: "app", outbox: moved.outbox)
            _ = await b.subscribe(
                socketID: "2.2", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100,
                resume: HistoryPosition(stream: stream, serial: 3))
            let answer = try #require(moved.frames.first)
            #expect(answer["recovered"] as? Bool == true, "not ahead of the channel: ahead of this node only")
            #expect(answer["serial"] as? Int == 3)
            #expect(moved.serials.isEmpty, "it missed nothing")
            #expect(onB.serials == [1, 2, 3], "node B's own subscriber got what node B had missed, in order")
            await a.publish(appID: "app", channel: "orders", frame: Self.event(4), excluding: nil)
            try await eventually("the live event") { moved.serials == [4] && onB.serials == [1, 2, 3, 4] }
        }
    }

    @Test func aResumeOnAnotherNodeReplaysWhatTheClusterHistoryKeepsThenWhatReachedThatNode() async throws {
        let cluster = LoopbackCluster()
        let history = MemoryHistory()
        try await Self.withTwoNodes(cluster, history: history) { a, b in
            let first = Recorder()
            await a.addConnection(socketID: "1.1", appID: "app", outbox: first.outbox)
            _ = await a.subscribe(socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
            await a.publish(appID: "app", channel: "orders", frame: Self.event(1), excluding: nil)
            let stream = try #require(first.frames.last?["stream"] as? String)
            await a.removeConnection(socketID: "1.1", appID: "app")
            for index in 2...30 { await a.publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }

            // Node B may have heard some of them, or none: the replay is whole either way.
            let back = Recorder()
            await b.addConnection(socketID: "2.1", appID: "app", outbox: back.outbox)
            _ = await b.subscribe(
                socketID: "2.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100,
                resume: HistoryPosition(stream: stream, serial: 1))
            let answer = try #require(back.frames.first)
            #expect(answer["recovered"] as? Bool == true)
            await a.publish(appID: "app", channel: "orders", frame: Self.event(31), excluding: nil)
            try await eventually("the live event") { back.serials.last == 31 }
            #expect(back.serials == Array(2...31))
        }
    }

    /// A cluster's history whose database is away.
    struct UnreachableHistory: ClusterHistory {
        struct Away: Error {}

        func append(
            _ frame: String, appID: String, channel: String, excluding: String?, keeping configuration: ChannelHistoryConfiguration
        ) async throws -> HistoryPosition { throw Away() }

        func read(appID: String, channel: String, after: HistoryPosition?, keeping configuration: ChannelHistoryConfiguration) async throws
            -> ClusterHistoryRead { throw Away() }

        func maintain(_ settings: ChannelHistory.Settings, subscribed: [ChannelTable.Key]) async throws -> [ChannelTable.Key: HistoryPosition] {
            throw Away()
        }
    }

    @Test func anEventTheClusterHistoryCannotKeepIsAnswered503AndDeliveredToNoOne() async throws {
        let drivers = LoopbackCluster().join()
        let configuration = TestHub.configuration { $0.history = ChannelHistoryConfiguration(size: 10, ttl: 60, channels: ["kept-"]) }
        let hub = try await TestHub.start(configuration, cluster: ClusterDrivers(transport: drivers.transport, history: UnreachableHistory()))
        try await withCleanup {
            let http = TestHTTP(hub)
            let body = #"{"name":"e","channels":["kept-orders"],"data":"1"}"#
            let refused = try await http.signed("POST", TestHub.restSigner.eventsPath, body: body)
            #expect(refused.status == 503)
            #expect(refused.json["error"] as? String == "api.historyUnavailable")
            #expect((refused.json["message"] as? String)?.contains("kept-orders") == true)
            #expect(refused.headers[.retryAfter] == "1")
            // A channel the app keeps no history of does not need the database.
            let other = try await http.signed("POST", TestHub.restSigner.eventsPath, body: #"{"name":"e","channels":["orders"],"data":"1"}"#)
            #expect(other.status == 200)
        } cleanup: {
            await hub.stop()
        }
    }
}
