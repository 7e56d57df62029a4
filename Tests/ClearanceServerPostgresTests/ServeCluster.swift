import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Testing

/// Real `clearance serve --backplane` nodes on a throwaway PostgreSQL, each linked to the cluster
/// before the test goes on.
enum ServeCluster {
    /// Runs `body` with nodes A and B (given more command-line `arguments`; and the environment
    /// that makes more), then stops them and destroys the database, also when `body` throws.
    static func withTwoNodes(
        arguments: [String] = [], adjustApp: (inout HubAppConfiguration) -> Void = { _ in },
        _ body: (ServeProcess, ServeProcess, [String: String]) async throws -> Void
    ) async throws {
        try await ThrowawayPostgres.with { database in
            let cluster = ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
            try await withNode(environment: cluster, arguments: arguments, adjustApp: adjustApp) { nodeA in
                try await withNode(environment: cluster, arguments: arguments, adjustApp: adjustApp) { nodeB in
                    try await body(nodeA, nodeB, cluster)
                }
            }
        }
    }

    /// Runs `body` with nodes A and B (given more command-line `arguments`) and their
    /// database (to stop and start it), then stops them and destroys the database, also when
    /// `body` throws.
    static func withTwoNodesAndDatabase(
        arguments: [String] = [], adjustApp: (inout HubAppConfiguration) -> Void = { _ in },
        _ body: (ServeProcess, ServeProcess, ThrowawayPostgres) async throws -> Void
    ) async throws {
        try await ThrowawayPostgres.with { database in
            let cluster = ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
            try await withNode(environment: cluster, arguments: arguments, adjustApp: adjustApp) { nodeA in
                try await withNode(environment: cluster, arguments: arguments, adjustApp: adjustApp) { nodeB in
                    try await body(nodeA, nodeB, database)
                }
            }
        }
    }

    /// Runs `body` with one more node of the cluster `environment` names (more command-line
    /// `arguments` given), once it is linked.
    static func withNode(
        environment: [String: String], arguments: [String] = [], adjustApp: (inout HubAppConfiguration) -> Void = { _ in },
        _ body: (ServeProcess) async throws -> Void
    ) async throws {
        try await ServeProcess.with(limits: TestHub.limits(), arguments: arguments, environment: environment, adjustApp: adjustApp) { node in
            try await linked(node)
            try await body(node)
        }
    }

    /// `node` restarted as users restart a service: stopped with SIGTERM (it drains), then a new
    /// `clearance serve` process started as it was (the same cluster, the same port), returned
    /// once it is linked. The caller stops it.
    static func restart(_ node: ServeProcess) async throws -> ServeProcess {
        await node.stop()
        return try await restartedAfterStop(node)
    }

    /// `node`, stopped already, started again as it was (the same cluster, the same port),
    /// returned once it is linked. The caller stops it.
    static func restartedAfterStop(_ node: ServeProcess) async throws -> ServeProcess {
        let restarted = try await node.startedAgain()
        do {
            try await linked(restarted)
        } catch {
            await restarted.stop(.kill)
            throw error
        }
        return restarted
    }

    /// Waits for `node`'s line saying it joined the cluster.
    private static func linked(_ node: ServeProcess) async throws {
        guard await node.process.line(timeout: .seconds(30), where: { $0.hasPrefix("backplane connected node=") }) != nil else {
            throw ChildProcess.Failure("the node did not join the cluster; stderr: \(node.process.stderr.suffix(2_000))")
        }
    }
}
