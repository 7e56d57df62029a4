import ClearanceDevelopment
import ClearanceServer
import ClearanceWire
import Foundation
import Testing

/// A configuration says what it does not know: a member that an object of the file does not have
/// (a misspelt `"alowedOrigins"` would leave every origin allowed) is refused with its path and
/// the closest known name, in every object of the file; every member our own types write is known.
@Suite("Configuration: unknown members", .timeLimit(.minutes(1)))
struct ConfigurationMembersTests {
    static let app = #"{"id": "1", "key": "k", "secret": "s"}"#

    /// Decodes `json` as a development hub (the top level with its development members), as
    /// `clearance serve` does, and returns the unknown-member error it throws.
    private func refusal(_ json: String) throws -> HubConfigurationError {
        do {
            _ = try JSONDecoder().decode(DevelopmentHub.self, from: Data(json.utf8))
        } catch let error as HubConfigurationError {
            return error
        }
        throw ConfigurationTestFailure("decoded without an error: \(json)")
    }

    @Test(arguments: [
        (#"{"apps": [\#(app)], "limts": {}}"#, "limts", "limits"),
        (#"{"apps": [\#(app)], "hots": "127.0.0.1"}"#, "hots", "host"),
        (#"{"apps": [\#(app)], "user": []}"#, "user", "users"),
        (#"{"apps": [{"id": "1", "key": "k", "secret": "s", "alowedOrigins": ["https://a.example"]}]}"#, "apps[0].alowedOrigins", "allowedOrigins"),
        (#"{"apps": [\#(app), {"id": "2", "key": "k2", "secret": "s", "AllowedOrigins": []}]}"#, "apps[1].AllowedOrigins", "allowedOrigins"),
        (#"{"apps": [{"id": "1", "key": "k", "secrte": "s"}]}"#, "apps[0].secrte", "secret"),
        (#"{"apps": [{"id": "1", "key": "k", "secret": "s", "backendEventPerSecond": 5}]}"#, "apps[0].backendEventPerSecond", "backendEventsPerSecond"),
        (#"{"apps": [\#(app)], "limits": {"maxConection": 5}}"#, "limits.maxConection", "maxConnections"),
        (#"{"apps": [\#(app)], "limits": {"webhookBatchWindows": 1}}"#, "limits.webhookBatchWindows", "webhookBatchWindow"),
        (#"{"apps": [{"id": "1", "key": "k", "secret": "s", "authorizedConections": true}]}"#, "apps[0].authorizedConections", "authorizedConnections"),
        (#"{"apps": [{"id": "1", "key": "k", "secret": "s", "webhooks": [{"url": "https://h.example", "event": ["channel_occupied"]}]}]}"#,
         "apps[0].webhooks[0].event", "events"),
        (#"{"apps": [{"id": "1", "key": "k", "secret": "s", "webhooks": [{"url": "https://h.example", "events": ["channel_occupied"], "allowInsecureHttp": true}]}]}"#,
         "apps[0].webhooks[0].allowInsecureHttp", "allowInsecureHTTP"),
        (#"{"apps": [{"id": "1", "key": "k", "secret": "s", "webhooks": [{"url": "https://h.example", "events": ["channel_occupied"], "filter": {"channelPrefx": "a"}}]}]}"#,
         "apps[0].webhooks[0].filter.channelPrefx", "channelPrefix"),
        (#"{"apps": [\#(app)], "metrics": {"prot": 9090}}"#, "metrics.prot", "port"),
        (#"{"apps": [\#(app)], "tls": {"certficate": "a.pem", "key": "a.key"}}"#, "tls.certficate", "certificate"),
        (#"{"apps": [\#(app)], "users": [{"token": "t", "id": "a"}, {"tokne": "t2", "id": "b"}]}"#, "users[1].tokne", "token"),
        (#"{"apps": [\#(app)], "pugpig": {"tokenLifetme": 60}}"#, "pugpig.tokenLifetme", "tokenLifetime"),
    ])
    func aMisspeltMemberIsRefusedWithItsPathAndTheClosestName(_ json: String, _ path: String, _ suggestion: String) throws {
        let error = try refusal(json)
        guard case let .unknownMember(foundPath, foundSuggestion, _) = error else {
            Issue.record("not an unknown member: \(error)")
            return
        }
        #expect(foundPath == path)
        #expect(foundSuggestion == suggestion)
        #expect(error.message == "The configuration has an unknown member \(path): did you mean \(suggestion)?")
        #expect(error.qualifiedCode == "hub.configuration.unknownMember")
    }

    @Test func aMemberCloseToNothingIsRefusedWithTheNamesTheObjectKnows() throws {
        let error = try refusal(#"{"apps": [\#(Self.app)], "metrics": {"port": 9090, "scrapeInterval": 15}}"#)
        #expect(error == .unknownMember(path: "metrics.scrapeInterval", suggestion: nil, known: ["host", "port"]))
        #expect(error.message == "The configuration has an unknown member metrics.scrapeInterval (known here: host, port).")
        let top = try refusal(#"{"apps": [\#(Self.app)], "database": "postgres://db"}"#)
        #expect(top.message == "The configuration has an unknown member database (known here: host, port, apps, limits, metrics, tls, users, pugpig, corsCredentials).")
    }

    /// JSON keeps no order of members: of several unknown ones, the first by name is named, the same every time.
    @Test func ofSeveralUnknownMembersTheFirstByNameIsNamed() throws {
        let error = try refusal(#"{"apps": [{"id": "1", "key": "k", "secret": "s", "zeta": 1, "alowedOrigins": [], "beta": 2}]}"#)
        #expect(error == .unknownMember(path: "apps[0].alowedOrigins", suggestion: "allowedOrigins", known: error.knownNames))
    }

    /// A name that is long or holds a line break is shown escaped and on one line, so that it
    /// cannot forge a log line.
    @Test func aStrangeMemberNameIsShownEscaped() throws {
        let error = try refusal(#"{"apps": [\#(Self.app)], "limits": {"a\nreload refused: forged": 1}}"#)
        #expect(!error.message.contains("\n"), "\(error.message)")
        #expect(error.message.contains(#"limits."a\nreload refused: forged""#), "\(error.message)")
        let long = String(repeating: "x", count: 200)
        let longError = try refusal(#"{"apps": [\#(Self.app)], "\#(long)": 1}"#)
        #expect(longError.message.contains("\"\(String(repeating: "x", count: 64))\"…"), "\(longError.message)")
    }

    @Test func closeMeansAFewLettersAndIgnoresCase() {
        let members = ConfigurationMembers(HubNames.self)
        #expect(members.suggestion(for: "prot") == "port")  // two letters swapped count one
        #expect(members.suggestion(for: "PORT") == "port")
        #expect(members.suggestion(for: "tsl") == "tls")
        #expect(members.suggestion(for: "hostname") == nil)  // four letters more than host: not a slip
        #expect(members.suggestion(for: "x") == nil)
        #expect(members.suggestion(for: "") == nil)
    }

    @Test func theRemovedFrameLimitKeepsItsOwnError() throws {
        #expect(try refusal(#"{"apps": [\#(Self.app)], "limits": {"maxQueuedFrames": 4096}}"#)
            == .removedLimit("maxQueuedFrames", replacement: "maxOutboundBytes"))
    }

    /// The file readers let the error through as it is: `clearance serve` prints it at start and
    /// refuses a reload with it.
    @Test func loadingAFileRefusesAnUnknownMemberAsItIs() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("unknown-member-\(UUID().uuidString).json")
        try Data(#"{"apps": [{"id": "1", "key": "k", "secret": "s", "alowedOrigins": ["https://a.example"]}]}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let expected = try refusal(String(decoding: try Data(contentsOf: url), as: UTF8.self))
        #expect(throws: expected) { try HubConfiguration.load(contentsOf: url) }
        #expect(throws: expected) { try HubConfiguration.load(contentsOf: url, validating: false) }
        #expect(throws: expected) { try DevelopmentHub.load(contentsOf: url) }
    }

    /// Every member of every object, the development ones included, is known.
    @Test func everyKnownMemberIsAccepted() throws {
        let json = #"""
            {"host": "127.0.0.1", "port": 0, "corsCredentials": false,
             "apps": [{"id": "1", "key": "k", "secret": "s", "encryptionMasterKey": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
                       "enabled": true, "maxConnections": 10, "maxPresenceMembers": 5, "clientEventsPerSecond": 3,
                       "backendEventsPerSecond": 4, "readRequestsPerSecond": 6, "clientEvents": false, "allowedOrigins": ["https://a.example"],
                       "authorizedConnections": true, "authorizedConnectionTimeout": 10,
                       "webhooks": [{"url": "http://127.0.0.1:1/h", "events": ["channel_occupied"], "headers": {"Authorization": "Bearer x"},
                                     "filter": {"channelPrefix": "presence-", "channelSuffix": "-eu"}, "allowInsecureHTTP": true}]}],
             "limits": {"activityTimeout": 60, "pongTimeout": 10, "serverPings": true, "inactivityTimeout": 600,
                        "maxChannelNameLength": 100, "maxEventDataBytes": 1000, "maxPresenceMembers": 50, "maxPresenceUserInfoBytes": 500,
                        "clientEventsPerSecond": 5, "maxMessageBytes": 4096, "maxChannelsPerEvent": 10, "maxEventsPerBatch": 5,
                        "maxEventNameLength": 100, "maxHTTPBodyBytes": 4096, "maxConnections": 100, "maxHTTPConnections": 100,
                        "maxConnectionsPerIP": 10, "maxSubscriptions": 1000, "maxChannelsPerConnection": 10, "subscriptionChangesPerSecond": 5,
                        "httpIdleTimeout": 5, "httpRequestTimeout": 5, "maxOutboundBytes": 65536, "maxTotalOutboundBytes": 1048576,
                        "closeTimeout": 1, "shutdownSpread": 0, "cacheTTL": 60, "maxCachedChannels": 10, "webhookBatchWindow": 0,
                        "webhookAttemptTimeout": 1, "webhookRetryDuration": 0, "webhookFirstRetryDelay": 1, "webhookShutdownWait": 0,
                        "maxQueuedWebhooks": 10, "backendEventsPerSecond": 10, "readRequestsPerSecond": 10,
                        "maxQueuedWebhookBytes": 2097152, "maxWebhookBatchBytes": 8192, "appShare": 0.5, "maxUnauthorizedConnectionsPerIP": 20,
                        "terminationGracePeriod": 30},
             "metrics": {"host": "127.0.0.1", "port": 0},
             "tls": {"certificate": "hub.pem", "key": "hub.key"},
             "users": [{"token": "t", "id": "alice", "info": {"name": "Alice"}, "entitlements": "all"}],
             "pugpig": {"secret": "p", "passwordScheme": "hmac-sha256", "passwordLifetime": 60, "tokenLifetime": 60, "renewalWindow": 600,
                        "contentDirectory": "/tmp", "edgeHeader": false, "globalAuthPassword": true}}
            """#
        let hub = try JSONDecoder().decode(DevelopmentHub.self, from: Data(json.utf8))
        #expect(hub.configuration.apps[0].webhooks[0].filter.channelSuffix == "-eu")
        #expect(hub.configuration.limits.httpAPI.readRequestsPerSecond == 10)
        #expect(hub.configuration.apps[0].authorizedConnectionTimeout == 10)
        #expect(hub.configuration.tls?.key == "hub.key")
        #expect(hub.users[0].entitlements == .all)
        #expect(hub.pugpig.globalAuthPassword && !hub.corsCredentials)
        let configuration = try JSONDecoder().decode(HubConfiguration.self, from: Data(json.utf8))
        #expect(configuration == hub.configuration)
        try configuration.validate()
    }

    /// What our own types write, they read back the same: every member of every object (none
    /// left at its default) survives encoding and decoding.
    @Test func whatOurTypesWriteDecodesToTheSame() throws {
        let limits = HubLimits {
            $0.connections.activityTimeout = 61
            $0.connections.pongTimeout = 11
            $0.connections.serverPings = false
            $0.connections.inactivityTimeout = 601
            $0.channels.maxChannelNameLength = 101
            $0.channels.maxEventDataBytes = 1_001
            $0.channels.maxPresenceMembers = 51
            $0.channels.maxPresenceUserInfoBytes = 501
            $0.channels.clientEventsPerSecond = 6
            $0.connections.maxMessageBytes = 4_097
            $0.httpAPI.maxChannelsPerEvent = 11
            $0.httpAPI.maxEventsPerBatch = 6
            $0.channels.maxEventNameLength = 101
            $0.httpAPI.maxHTTPBodyBytes = 4_097
            $0.connections.maxConnections = 101
            $0.httpAPI.maxHTTPConnections = 102
            $0.connections.maxConnectionsPerIP = 11
            $0.channels.maxSubscriptions = 1_001
            $0.channels.maxChannelsPerConnection = 12
            $0.channels.subscriptionChangesPerSecond = 7
            $0.httpAPI.httpIdleTimeout = 6
            $0.httpAPI.httpRequestTimeout = 7
            $0.connections.maxOutboundBytes = 65_537
            $0.connections.maxTotalOutboundBytes = 1_048_577
            $0.connections.closeTimeout = 2
            $0.connections.shutdownSpread = 0.5
            $0.channels.cacheTTL = 61
            $0.channels.maxCachedChannels = 11
            $0.webhooks.webhookBatchWindow = 0.25
            $0.webhooks.webhookAttemptTimeout = 2
            $0.webhooks.webhookRetryDuration = 1
            $0.webhooks.webhookFirstRetryDelay = 2
            $0.webhooks.webhookShutdownWait = 1
            $0.webhooks.maxQueuedWebhooks = 11
            $0.webhooks.maxQueuedWebhookBytes = 2_097_153
            $0.webhooks.maxWebhookBatchBytes = 8_193
            $0.connections.appShare = 0.5
            $0.connections.maxUnauthorizedConnectionsPerIP = 21
            $0.connections.terminationGracePeriod = 31
            $0.httpAPI.backendEventsPerSecond = 12
            $0.httpAPI.readRequestsPerSecond = 13
        }
        let webhook = WebhookTarget(
            url: "https://h.example/p", events: [.channelOccupied, .memberAdded], headers: ["Authorization": "Bearer x"],
            filter: WebhookChannelFilter(channelPrefix: "presence-", channelSuffix: "-eu"), allowInsecureHTTP: true)
        let app = HubAppConfiguration(
            id: "1", key: "k", secret: "s", encryptionMasterKey: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", enabled: false,
            maxConnections: 10, clientEvents: false, webhooks: [webhook], allowedOrigins: ["https://a.example"], maxPresenceMembers: 5,
            clientEventsPerSecond: 3, backendEventsPerSecond: 4, readRequestsPerSecond: 6, authorizedConnections: true,
            authorizedConnectionTimeout: 12, subscriptionCount: true)
        let configuration = HubConfiguration(
            host: "0.0.0.0", port: 6002, apps: [app, HubAppConfiguration(id: "2", key: "k2", secret: "s2")], limits: limits,
            metrics: HubMetricsConfiguration(host: "0.0.0.0", port: 9091), tls: HubTLSConfiguration(certificate: "hub.pem", key: "hub.key"))
        let encoded = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(HubConfiguration.self, from: encoded) == configuration)

        // Every limit is written (none is left out of the file for want of a name).
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        let writtenLimits = try #require(object["limits"] as? [String: [String: Any]])
        #expect(writtenLimits.values.map(\.count).reduce(0, +) == 42, "\(writtenLimits.mapValues { $0.keys.sorted() })")

        // The development members, written by their own types beside the configuration.
        let user = DevelopmentUser(token: "t", id: "alice", info: .object(["name": .string("Alice")]), entitlements: .issues(["issue-1"]))
        let pugpig = DevelopmentPugpigSettings(
            secret: "p", passwordScheme: .pugpigSHA1, passwordLifetime: 61, tokenLifetime: 62, renewalWindow: 601, contentDirectory: "/tmp",
            edgeHeader: false, globalAuthPassword: true)
        var file = object
        file["users"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode([user]))
        file["pugpig"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(pugpig))
        file["corsCredentials"] = true
        let hub = try JSONDecoder().decode(DevelopmentHub.self, from: JSONSerialization.data(withJSONObject: file))
        #expect(hub.configuration == configuration)
        #expect(hub.users == [user])
        #expect(hub.pugpig == pugpig)
        #expect(hub.corsCredentials)
    }

    /// The top-level names, for ``closeMeansAFewLettersAndIgnoresCase()``.
    private enum HubNames: String, CodingKey, CaseIterable {
        case host, port, apps, limits, metrics, tls
    }
}

extension HubConfigurationError {
    /// The names an unknown-member error lists (none for another error).
    fileprivate var knownNames: [String] {
        if case let .unknownMember(_, _, known) = self { return known }
        return []
    }
}

/// A test's own failure, with what it saw.
private struct ConfigurationTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
