import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// An app's `"history"` in a configuration file: read strictly, validated with a message that
/// names the member and its range, and refused on a node of a cluster whose drivers keep no history (PostgreSQL's do).
@Suite("Hub history configuration")
struct HubHistoryConfigurationTests {
    private func load(_ history: String) throws(HubConfigurationError) -> HubConfiguration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).json")
        try? Data(#"{"apps":[{"id":"app","key":"key","secret":"app-secret","history":\#(history)}]}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try HubConfiguration.load(contentsOf: url)
    }

    @Test func aHistoryLoadsAndCoversItsPrefixesButNoPresenceChannel() throws {
        let history = try #require(try load(#"{"size": 300, "ttl": 120, "channels": ["orders-", "private-orders-"]}"#).apps[0].history)
        #expect(history == ChannelHistoryConfiguration(size: 300, ttl: 120, channels: ["orders-", "private-orders-"]))
        #expect(history.covers("orders-1") && history.covers("private-orders-1"))
        #expect(!history.covers("news"))
        #expect(ChannelHistoryConfiguration(size: 1, ttl: 1).covers("cache-x"))
        #expect(!ChannelHistoryConfiguration(size: 1, ttl: 1).covers("presence-room"))
        #expect(try load(#"{"size": 1, "ttl": 1}"#).apps[0].description.contains("history: size 1, ttl 1.0 s"))

        // What a configuration writes reads back the same.
        var configuration = TestHub.configuration()
        configuration.apps[0].history = history
        #expect(try JSONDecoder().decode(HubConfiguration.self, from: JSONEncoder().encode(configuration)) == configuration)
    }

    @Test(arguments: [
        (#"{"size": 0, "ttl": 120}"#, "size is 0: it must be 1 to 10000 events"),
        (#"{"size": 10001, "ttl": 120}"#, "size is 10001"),
        (#"{"size": 300, "ttl": 0}"#, "ttl is 0.0: it must be more than 0 and at most 86400 seconds"),
        (#"{"size": 300, "ttl": 86401}"#, "ttl is 86401.0"),
        (#"{"size": 300, "ttl": 120, "channels": []}"#, "channels is empty"),
        (#"{"size": 300, "ttl": 120, "channels": [""]}"#, "an empty prefix"),
        (#"{"size": 300, "ttl": 120, "channels": ["presence-"]}"#, "presence channels have no history"),
    ])
    func aHistoryOutOfRangeIsRefusedWithWhatAndWhy(history: String, reason: String) throws {
        do {
            _ = try load(history)
            Issue.record("\(history) loaded")
        } catch {
            guard case let .invalidHistory(appID, message) = error else { Issue.record("\(error)"); return }
            #expect(appID == "app")
            #expect(message.contains(reason), "\(message)")
            #expect(error.message.hasPrefix("The history of the app app is not usable: "))
        }
    }

    @Test func aMisspeltMemberIsNamedWithTheClosestOne() throws {
        #expect(throws: HubConfigurationError.unknownMember(path: "apps[0].history.sise", suggestion: "size", known: ["size", "ttl", "channels"])) {
            try load(#"{"sise": 300, "ttl": 120}"#)
        }
        #expect(throws: (any Error).self) { try load(#"{"ttl": 120}"#) }
    }

    @Test func aNodeOfAClusterThatKeepsNoHistoryRefusesAnAppWithAHistory() async throws {
        let cluster = LoopbackCluster()
        var configuration = TestHub.configuration()
        configuration.apps[0].history = ChannelHistoryConfiguration(size: 10, ttl: 10)
        do {
            let hub = try await TestHub.start(configuration, cluster: cluster.join())
            await hub.stop()
            Issue.record("a cluster node started with a history")
        } catch let error as HubConfigurationError {
            guard case let .invalidHistory(appID, reason) = error else { Issue.record("\(error)"); return }
            #expect(appID == TestHub.appID)
            #expect(reason.contains("this cluster's drivers keep no channel history"))
        }
    }
}
