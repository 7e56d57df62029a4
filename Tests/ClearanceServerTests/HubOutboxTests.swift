@testable import ClearanceServer
import Clearance
import ClearanceChannels
import ClearanceTestSupport
import Foundation
import Testing

/// The hub's side of the outbox (`Hub+Outbox.swift`): each event an app published from its
/// transaction goes through the HTTP API's rules, to the same subscribers, with serials on a
/// channel with a history; a bad one is rejected with its reason and counted, one past its app's
/// rate waits (an outbox in memory stands for PostgreSQL's).
@Suite("Hub outbox")
struct HubOutboxTests {
    /// Hands its events to the hub in order, keeping what became of each, whenever it is rung
    /// (an event added, or ``ring()``); one asked to wait stays first until the next ring.
    final class MemoryOutbox: ClusterOutbox {
        let pending = Locked<[OutboxEvent]>([])
        let outcomes = Locked<[(Int64, OutboxOutcome)]>([])
        private let (bell, ringer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

        func run(publish: @escaping @Sendable (OutboxEvent) async -> OutboxOutcome) async {
            for await _ in bell {
                while let next = pending.withLock({ $0.first }) {
                    let outcome = await publish(next)
                    outcomes.withLock { $0.append((next.id, outcome)) }
                    guard outcome != .retryLater else { break }
                    pending.withLock { _ = $0.removeFirst() }
                }
            }
        }

        /// Has it hand over what waits (as PostgreSQL's outbox does at a commit or its retry).
        func ring() {
            ringer.yield()
        }

        func add(_ id: Int64, app: String = TestHub.appID, channels: [String], name: String = "e", data: String) {
            pending.withLock { $0.append(OutboxEvent(id: id, appID: app, channels: channels, name: name, data: data, socketID: nil)) }
            ring()
        }

        func outcome(_ id: Int64) -> [OutboxOutcome] { outcomes.withLock { $0 }.filter { $0.0 == id }.map(\.1) }
    }

    @Test func eventsGoThroughTheHTTPAPIsRulesToTheSameSubscribers() async throws {
        let outbox = MemoryOutbox()
        let drivers = LoopbackCluster().join()
        let configuration = TestHub.configuration {
            $0.history = ChannelHistoryConfiguration(size: 10, ttl: 60, channels: ["kept-"])
            $0.backendEventsPerSecond = 2
        }
        // The history's driver: this node alone, numbering in memory.
        let clock = ManualHubClock()
        let hub = try await TestHub.start(
            configuration, cluster: ClusterDrivers(transport: drivers.transport, history: ClusterHistoryOrderTests.MemoryHistory(), outbox: outbox),
            clock: clock)
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port))
        try await withCleanup {
            await client.connect()
            let channel = await client.subscribe("kept-orders")
            let events = channel.events
            let received = Locked<[ChannelEvent]>([])
            let reader = Task { for await event in events where event.name == "e" { received.withLock { $0.append(event) } } }
            defer { reader.cancel() }
            try await channel.subscribed()

            outbox.add(1, app: "nobody", channels: ["kept-orders"], data: "x")
            outbox.add(2, channels: ["bad name!"], data: "x")
            outbox.add(3, channels: ["kept-orders"], name: String(repeating: "n", count: 500), data: "x")
            outbox.add(4, channels: ["kept-orders"], data: "first")
            outbox.add(5, channels: ["kept-orders"], data: "second")
            outbox.add(6, channels: ["kept-orders"], data: "third")
            // Two events a second: the third waits for the app's rate (the hub's clock does not move).
            try await eventually("the third asked to wait") { outbox.outcome(6).first == .retryLater }
            #expect(outbox.pending.withLock { $0.map(\.id) } == [6])
            await clock.advance(by: .seconds(1))
            outbox.ring()
            try await eventually("every event handled") { outbox.pending.withLock { $0.isEmpty } }

            #expect(outbox.outcome(1) == [.rejected(reason: "no app has the id 'nobody'.")])
            guard case let .rejected(channelReason)? = outbox.outcome(2).first else { Issue.record("\(outbox.outcome(2))"); return }
            #expect(channelReason.contains("bad name!") || channelReason.lowercased().contains("channel"), "\(channelReason)")
            guard case let .rejected(nameReason)? = outbox.outcome(3).first else { Issue.record("\(outbox.outcome(3))"); return }
            #expect(nameReason.contains("'name'"), "\(nameReason)")
            #expect(hub.counters.value(.outboxRejected) == 3)
            #expect(outbox.outcome(4) == [.delivered])
            #expect(outbox.outcome(5) == [.delivered])
            #expect(outbox.outcome(6).first == .retryLater)
            #expect(outbox.outcome(6).last == .delivered)
            try await eventually("the three events") { received.withLock { $0.count } == 3 }
            #expect(received.withLock { $0 }.map(\.data) == ["first", "second", "third"])
        } cleanup: {
            await client.disconnect()
            await hub.stop()
        }
    }
}
