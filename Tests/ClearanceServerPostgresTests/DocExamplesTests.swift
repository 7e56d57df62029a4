import ClearanceServer
import ClearanceServerPostgres
import Logging
import Testing

/// The Swift blocks of `ClearanceServerPostgres`' doc comments, compiled (they name a database on
/// another machine; `ClusterTests` run clusters on a throwaway PostgreSQL). `DocumentationTests`
/// checks the documents show the marked regions.
enum PostgresDocExamples {
    static func backplaneConfigurationDocComment(clusterSecret: String, hubConfiguration: HubConfiguration) throws -> HubService {
        // snippet: begin
        let configuration = try PostgresBackplaneConfiguration(
            url: "postgres://clearance@db.internal:5432/clearance?sslmode=require",
            clusterKey: BackplaneClusterKey(secret: clusterSecret))
        let hub = HubService(configuration: hubConfiguration, cluster: PostgresCluster(configuration: configuration).drivers)
        // snippet: end
        return hub
    }

    static func clusterDocComment(clusterSecret: String, configuration: HubConfiguration) throws -> HubService {
        // snippet: begin
        let key = try BackplaneClusterKey(secret: clusterSecret)  // the same on every node
        let node = PostgresCluster(configuration: try PostgresBackplaneConfiguration(url: "postgres://clearance@db:5432/clearance", clusterKey: key))
        let hub = HubService(configuration: configuration, cluster: node.drivers)
        // snippet: end
        return hub
    }

    static func appsConfigurationDocComment(appsKeySecret: String) throws -> PostgresAppsConfiguration {
        // snippet: begin
        let apps = try PostgresAppsConfiguration(
            url: "postgres://clearance@db.internal:5432/clearance?sslmode=require",
            key: PostgresAppsKey(secret: appsKeySecret))
        // snippet: end
        return apps
    }

    static func appStoreDocComment(_ configuration: PostgresAppsConfiguration, logger: Logger) async throws {
        // snippet: begin
        let store = try await PostgresAppStore.open(configuration, logger: logger)
        try await store.add(HubAppConfiguration(id: "app-1", key: "key-1", secret: HubConfiguration.randomSecret()))
        await store.close()
        // snippet: end
    }
}
