import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Testing

/// Real `clearance serve --backplane` nodes on a throwaway PostgreSQL, each linked to the cluster
/// before the test goes on.
enum ServeCluster {
    /// Runs `body` with nodes A and B (and the environment that makes more), then stops them and
    /// destroys the database, also when `body` throws.
    static func withTwoNodes(
        adjustApp: (inout HubAppConfiguration) -> Void = { _ in }, _ body: (ServeProcess, ServeProcess, [String: String]) async throws -> Void
    ) async throws {
        let database = try await ThrowawayPostgres.start()
        try await withCleanup {
            let cluster = ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
            try await withNode(environment: cluster, adjustApp: adjustApp) { nodeA in
                try await withNode(environment: cluster, adjustApp: adjustApp) { nodeB in
                    try await body(nodeA, nodeB, cluster)
                }
            }
        } cleanup: {
            await database.destroy()
        }
    }

    /// Runs `body` with one more node of the cluster `environment` names, once it is linked.
    static func withNode(
        environment: [String: String], adjustApp: (inout HubAppConfiguration) -> Void = { _ in }, _ body: (ServeProcess) async throws -> Void
    ) async throws {
        try await ServeProcess.with(limits: TestHub.limits(), environment: environment, adjustApp: adjustApp) { node in
            #expect(await node.process.line(timeout: .seconds(30)) { $0.hasPrefix("backplane connected node=") } != nil, "\(node.process.stderr)")
            try await body(node)
        }
    }
}
