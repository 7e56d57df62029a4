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
        let nodeA = PostgresCluster(configuration: configuration, queueLimit: 1, logger: TestHub.quietLogger)
        let nodeB = PostgresCluster(configuration: configuration, logger: TestHub.quietLogger)
        let a = HubChannelState(webhooks: nil, cluster: nodeA.drivers)
        let b = HubChannelState(webhooks: nil, cluster: nodeB.drivers)
        let running = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await a.run() }
                group.addTask { try? await b.run() }
            }
        }
        try await withCleanup {
            try await ClusterFixture.linked(nodeA)
            try await ClusterFixture.linked(nodeB)
            let sink = Discard()
            await a.addConnection(socketID: "1.1", appID: "app", outbox: ConnectionOutbox(sink: sink))
            let channels = (0..<200).map { "channel-\($0)" }
            for channel in channels {
                _ = await a.subscribe(socketID: "1.1", appID: "app", channel: channel, member: nil, maxPresenceMembers: 100)
            }
            #expect(nodeA.queue.dropped > 0, "the burst must overflow the queue for this test to mean anything")
            // The whole state (200 channels) through a database on a machine that may be loaded:
            // a generous bound, left as soon as it holds (one loaded run needed more than 10 s).
            do {
                try await eventually("B counts every channel A's connection subscribed to", timeout: .seconds(30)) {
                    let seen = await b.channels(appID: "app")
                    return seen.count == channels.count && seen.allSatisfy { $0.subscriptionCount == 1 }
                }
            } catch {
                // What a failure needs to be understood: how far B got, and where A's queue is.
                let seen = await b.channels(appID: "app")
                let atOne = seen.filter { $0.subscriptionCount == 1 }.count
                Issue.record("B counts \(seen.count) channels (\(atOne) at 1); A dropped \(nodeA.queue.dropped), A's queue empty: \(nodeA.queue.isEmpty), A's sender waiting: \(nodeA.queue.isWaiting)")
                throw error
            }
            // And changes after the resynchronization still reach B.
            await a.removeConnection(socketID: "1.1", appID: "app")
            try await eventually("B forgets them once A's connection is gone", timeout: .seconds(30)) { await b.channels(appID: "app").isEmpty }
        } cleanup: {
            await a.shutdown()
            await b.shutdown()
            await running.value
            await database.destroy()
        }
    }
}
