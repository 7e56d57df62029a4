@testable import ClearanceServerPostgres
import Clearance
import ClearanceDevelopment
@testable import ClearanceServer
import ClearanceTestSupport
import Testing

/// A node whose queue overflowed (the database did not keep up) sends its whole state again
/// once it has caught up, so the other nodes' counts heal without a reconnect.
@Suite("Backplane resynchronization", .timeLimit(.minutes(2)))
struct BackplaneResyncTests {
    /// An outbox that drops what it is given: the test reads the channel counts only.
    final class Discard: ConnectionSink {
        func deliver(_ delivery: ConnectionOutbox.Delivery) {}
        func close(_ code: HubCloseCode) {}
        func finish() {}
    }

    @Test func aNodeWhoseQueueOverflowedResynchronizesTheOthers() async throws {
        let database = try await ThrowawayPostgres.start()
        let configuration = try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test)
        // A holds one unsent message at most: a burst of subscriptions overflows it.
        let a = PostgresChannelState(configuration: configuration, queueLimit: 1, logger: TestHub.quietLogger)
        let b = PostgresChannelState(configuration: configuration, logger: TestHub.quietLogger)
        let running = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await a.run() }
                group.addTask { try? await b.run() }
            }
        }
        try await withCleanup {
            try await ClusterFixture.linked(a)
            try await ClusterFixture.linked(b)
            let sink = Discard()
            await a.addConnection(socketID: "1.1", appID: "app", outbox: ConnectionOutbox(sink: sink))
            let channels = (0..<200).map { "channel-\($0)" }
            for channel in channels {
                _ = await a.subscribe(socketID: "1.1", appID: "app", channel: channel, member: nil, maxPresenceMembers: 100)
            }
            #expect(a.queue.dropped > 0, "the burst must overflow the queue for this test to mean anything")
            try await eventually("B counts every channel A's connection subscribed to") {
                let seen = await b.channels(appID: "app")
                return seen.count == channels.count && seen.allSatisfy { $0.subscriptionCount == 1 }
            }
            // And changes after the resynchronization still reach B.
            await a.removeConnection(socketID: "1.1", appID: "app")
            try await eventually("B forgets them once A's connection is gone") { await b.channels(appID: "app").isEmpty }
        } cleanup: {
            await a.shutdown()
            await b.shutdown()
            await running.value
            await database.destroy()
        }
    }
}
