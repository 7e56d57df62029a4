import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Testing

/// A node that stopped lets go of its hub: nothing of it stays alive in a cycle with its
/// cluster's drivers. (AddressSanitizer's leak check found such a cycle at a process's exit: the
/// PostgreSQL transport kept the hub's inbox, which holds the hub's channel state, which holds
/// the transport.)
@Suite("A stopped node lets its hub go")
struct ClusterReleaseTests {
    /// Held weakly: nil once nothing keeps the object alive.
    final class Weak<Object: AnyObject & Sendable>: @unchecked Sendable {
        weak var object: Object?
        init(_ object: Object) { self.object = object }
    }

    @Test func aStoppedPostgresNodeIsReleased() async throws {
        try await ThrowawayPostgres.with { database in
            let weak = try await Self.runAndStop {
                let cluster = PostgresCluster(
                    configuration: try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test), logger: TestHub.quietLogger)
                let node = try await TestHub.start(TestHub.configuration(), cluster: cluster.drivers)
                try await ClusterFixture.linked(cluster)
                return (node, Weak(cluster))
            }
            // Positive control: the node ran, linked and stopped; now only a cycle could hold it.
            try await eventually("the stopped node's transport released") { weak.object == nil }
        }
    }

    @Test func aLoopbackClusterIsReleasedAfterItsNodesStop() async throws {
        let weak = try await Self.runAndStop {
            let cluster = LoopbackCluster()
            let node = try await TestHub.start(TestHub.configuration(), cluster: cluster.join())
            // A node that joined and never ran holds nothing either.
            _ = cluster.join()
            return (node, Weak(cluster))
        }
        try await eventually("the loopback cluster released") { weak.object == nil }
    }

    /// Starts a node with `start`, stops it, and returns only the weak reference.
    private static func runAndStop<Object>(
        _ start: () async throws -> (HubServer, Weak<Object>)
    ) async throws -> Weak<Object> {
        let (node, weak) = try await start()
        #expect(weak.object != nil)
        await node.stop()
        return weak
    }
}
