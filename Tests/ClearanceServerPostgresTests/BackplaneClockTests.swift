@testable import ClearanceServerPostgres
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Testing

/// The PostgreSQL link times its heartbeats on the hub's clock (``ClusterInbox/clock``): with a
/// ten-minute interval none comes in the test's real time, and moving the hub's manual clock on
/// brings one, without a wait.
@Suite("The backplane on the hub's clock", .timeLimit(.minutes(2)))
struct BackplaneClockTests {
    @Test func aHeartbeatComesWhenTheHubsClockReachesTheInterval() async throws {
        try await ThrowawayPostgres.with { database in
            var configuration = try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test)
            configuration.heartbeatInterval = .seconds(600)
            configuration.nodeTimeout = .seconds(1_200)
            let clock = ManualHubClock()
            let node = PostgresCluster(configuration: configuration, logger: TestHub.quietLogger)
            let hub = try await TestHub.start(cluster: node.drivers, clock: clock)
            try await withCleanup {
                try await ClusterFixture.linked(node)
                let table = BackplaneSchema(namespace: configuration.namespace).nodes
                let seen = "SELECT (extract(epoch FROM seen_at) * 1000000)::bigint FROM \(table) WHERE node_id = '\(node.nodeID)'"
                let first = try #require(try await ClusterWebhookTests.count(seen, database), "the node recorded no heartbeat as it linked")
                // Ten minutes of the hub's clock at a time, until the heartbeat loop (asleep on
                // it once the link is up) wakes and records one.
                try await eventually("a heartbeat once ten minutes passed on the hub's clock") {
                    await clock.advance(by: .seconds(600))
                    return try await ClusterWebhookTests.count(seen, database) ?? 0 > first
                }
            } cleanup: {
                await hub.stop()
            }
        }
    }
}
