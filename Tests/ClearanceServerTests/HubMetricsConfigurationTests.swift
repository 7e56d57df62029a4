import ClearanceServer
import Foundation
import Testing

/// The `metrics` member of a hub configuration: decoded with its defaults, validated with a
/// clear error, and two hubs in one process count apart.
@Suite struct HubMetricsConfigurationTests {
    let app = #"{"id": "1", "key": "k", "secret": "s"}"#

    @Test func decodesWithLoopbackByDefaultAndIsOffWithoutIt() throws {
        let with = try JSONDecoder().decode(HubConfiguration.self, from: Data(#"{"apps": [\#(app)], "metrics": {"port": 9090}}"#.utf8))
        #expect(with.metrics == HubMetricsConfiguration(host: "127.0.0.1", port: 9090))
        try with.validate()
        let host = try JSONDecoder().decode(HubConfiguration.self, from: Data(#"{"apps": [\#(app)], "metrics": {"host": "0.0.0.0", "port": 0}}"#.utf8))
        #expect(host.metrics == HubMetricsConfiguration(host: "0.0.0.0", port: 0))
        let without = try JSONDecoder().decode(HubConfiguration.self, from: Data(#"{"apps": [\#(app)]}"#.utf8))
        #expect(without.metrics == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(HubConfiguration.self, from: Data(#"{"apps": [\#(app)], "metrics": {"host": "0.0.0.0"}}"#.utf8))
        }
    }

    @Test func unusableEndpointsAreClearErrors() {
        let app = HubAppConfiguration(id: "1", key: "k", secret: "s")
        #expect(throws: HubConfigurationError.invalidMetricsEndpoint("the port 70000 is outside 0…65535")) {
            try HubConfiguration(apps: [app], metrics: HubMetricsConfiguration(port: 70_000)).validate()
        }
        #expect(throws: HubConfigurationError.invalidMetricsEndpoint("the port 6001 is the hub's own: give the metrics a port of their own")) {
            try HubConfiguration(port: 6001, apps: [app], metrics: HubMetricsConfiguration(port: 6001)).validate()
        }
        #expect(HubConfigurationError.invalidMetricsEndpoint("the host is empty").qualifiedCode == "hub.configuration.invalidMetricsEndpoint")
    }

    @Test func eachHubCountsInItsOwnRegistry() {
        let first = HubMetrics()
        let second = HubMetrics()
        first.backplaneConnected(true)
        #expect(first.exposition().contains("clearance_backplane_connected 1"))
        #expect(second.exposition().contains("clearance_backplane_connected 0"))
        #expect(!first.isReady)
    }
}
