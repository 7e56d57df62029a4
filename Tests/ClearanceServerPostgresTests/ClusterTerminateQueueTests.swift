import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
@testable import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import Testing

/// A terminate reaches the other nodes whatever the state of the node's message queue: node A's
/// queue here holds nothing at all (every message it would send beside its whole state is dropped,
/// as when the database does not keep up), and its terminate still closes the user's connection on
/// node B, because a termination is a row of the database, not a message.
@Suite("terminate_connections with a full backplane queue", .timeLimit(.minutes(3)))
struct ClusterTerminateQueueTests {
    @Test func aTerminateReachesTheOtherNodeWhenTheAskedNodesQueueIsFull() async throws {
        try await ThrowawayPostgres.with { database in
            let configuration = try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test)
            let full = PostgresCluster(configuration: configuration, queueLimit: 0, logger: TestHub.quietLogger)
            let other = PostgresCluster(configuration: configuration, logger: TestHub.quietLogger)
            let nodeA = try await TestHub.start(cluster: full.drivers)
            let nodeB = try await TestHub.start(cluster: other.drivers)
            try await withCleanup {
                try await ClusterFixture.linked(full)
                try await ClusterFixture.linked(other)
                let alice = try await ClusterTerminateTests.signedIn(as: "alice", port: nodeB.port)
                // Node A's queue drops what it is given: an event on a cache channel (always sent) is lost.
                try await TestHub.trigger(nodeA, event: "lost", channels: ["cache-news"], data: "x")
                #expect(full.queue.dropped > 0)
                let response = try await TestHTTP(nodeA).signed("POST", "/apps/\(TestHub.appID)/users/alice/terminate_connections", body: "{}")
                #expect(response.status == 200)
                try await eventually("alice's connection on node B closed", timeout: .seconds(15)) { await alice.state.isTerminal }
                guard case .failed(let error) = await alice.state else { throw ChildProcess.Failure("alice: \(await alice.state)") }
                #expect(error.closeCode == 4009)
            } cleanup: {
                await nodeA.stop()
                await nodeB.stop()
            }
        }
    }
}
