import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import Foundation
import Testing

@Suite("HubConfiguration")
struct HubConfigurationTests {
    private func write(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hub-config-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func loadsAFileWithDefaultsForWhatIsMissing() throws {
        let url = try write("""
            {"apps":[{"id":"a1","key":"k1","secret":"s1"}],
             "users":[{"token":"t","id":"alice","info":{"name":"Alice","age":30}}],
             "limits":{"maxPresenceMembers":5,"pongTimeout":0.5}}
            """)
        defer { try? FileManager.default.removeItem(at: url) }
        let configuration = try HubConfiguration.load(contentsOf: url)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 6001)
        #expect(configuration.apps == [HubAppConfiguration(id: "a1", key: "k1", secret: "s1")])
        // The development users in the same file are the development hub's; the hub ignores them.
        let development = try DevelopmentHub.load(contentsOf: url)
        #expect(development.configuration == configuration)
        #expect(development.users[0].info == .object(["name": .string("Alice"), "age": .number("30")]))
        #expect(configuration.limits.channels.maxPresenceMembers == 5)
        #expect(configuration.limits.connections.pongTimeout == 0.5)
        #expect(configuration.limits.connections.activityTimeout == 120)
    }

    @Test(arguments: [
        ("not json", "not valid JSON"),
        (#"{"apps":[{"id":"a","key":"k","secret":"s"}],"port":1e300}"#, "a value does not fit its field (a number too large, or not a whole number where one is expected)"),
        (#"{"apps":[{"id":"a","key":"k","secret":"s"}],"limits":{"maxConnections":1e300}}"#, "a value does not fit its field (a number too large, or not a whole number where one is expected)"),
        (#"{"apps":[{"id":"a"}]}"#, "missing apps[0].key"),
        (#"{"apps":"x"}"#, "wrong type at apps"),
    ])
    func malformedFilesAreExplained(_ text: String, _ reason: String) throws {
        let url = try write(text)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: HubConfigurationError.malformedFile(path: url.path, reason: reason)) {
            try HubConfiguration.load(contentsOf: url)
        }
    }

    @Test func missingFilesAreExplained() {
        #expect(throws: HubConfigurationError.unreadableFile(path: "/nonexistent/hub.json")) {
            try HubConfiguration.load(contentsOf: URL(fileURLWithPath: "/nonexistent/hub.json"))
        }
    }

    @Test func validationFindsTheFirstProblem() {
        let app = HubAppConfiguration(id: "a", key: "k", secret: "s")
        func check(_ configuration: HubConfiguration, _ error: HubConfigurationError) {
            #expect(throws: error) { try configuration.validate() }
        }
        check(HubConfiguration(apps: []), .noApps)
        check(HubConfiguration(port: 70_000, apps: [app]), .invalidPort(70_000))
        check(HubConfiguration(apps: [app, HubAppConfiguration(id: "a", key: "k2", secret: "s")]), .duplicateAppID("a"))
        check(HubConfiguration(apps: [app, HubAppConfiguration(id: "b", key: "k", secret: "s")]), .duplicateAppKey("k"))
        check(HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k:1", secret: "s")]), .invalidApp(id: "a", reason: .invalidKey))
        check(HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "")]), .invalidApp(id: "a", reason: .emptySecret))
        check(HubConfiguration(apps: [HubAppConfiguration(id: "a b", key: "k", secret: "s")]), .invalidApp(id: "a b", reason: .invalidAppID))
        check(HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s", encryptionMasterKey: "short")]),
              .invalidApp(id: "a", reason: .invalidMasterKey))
        check(HubConfiguration(apps: [app], limits: HubLimits { $0.connections.activityTimeout = 0 }), .invalidLimit("activityTimeout"))
        #expect(throws: Never.self) { try HubConfiguration(apps: [app]).validate() }
    }

    /// Every duration and size has an upper bound: a huge value (1e300 seconds, say) is a
    /// configuration error, never a trap when the hub turns it into a timer or an allocation.
    @Test(arguments: [
        ("activityTimeout", Self.limits { $0.connections.activityTimeout = .max }),
        ("pongTimeout", Self.limits { $0.connections.pongTimeout = 1e300 }),
        ("pongTimeout", Self.limits { $0.connections.pongTimeout = .nan }),
        ("inactivityTimeout", Self.limits { $0.connections.inactivityTimeout = .infinity }),
        ("maxChannelNameLength", Self.limits { $0.channels.maxChannelNameLength = .max }),
        ("maxEventDataBytes", Self.limits { $0.channels.maxEventDataBytes = .max }),
        ("maxPresenceMembers", Self.limits { $0.channels.maxPresenceMembers = .max }),
        ("maxPresenceUserInfoBytes", Self.limits { $0.channels.maxPresenceUserInfoBytes = .max }),
        ("clientEventsPerSecond", Self.limits { $0.channels.clientEventsPerSecond = .max }),
        ("maxMessageBytes", Self.limits { $0.connections.maxMessageBytes = .max }),
        ("maxChannelsPerEvent", Self.limits { $0.httpAPI.maxChannelsPerEvent = .max }),
        ("maxEventsPerBatch", Self.limits { $0.httpAPI.maxEventsPerBatch = .max }),
        ("maxEventNameLength", Self.limits { $0.channels.maxEventNameLength = .max }),
        ("maxHTTPBodyBytes", Self.limits { $0.httpAPI.maxHTTPBodyBytes = .max }),
        ("maxConnections", Self.limits { $0.connections.maxConnections = .max }),
        ("maxConnections", Self.limits { $0.connections.maxConnections = -1 }),
        ("maxChannelsPerConnection", Self.limits { $0.channels.maxChannelsPerConnection = 0 }),
        ("maxChannelsPerConnection", Self.limits { $0.channels.maxChannelsPerConnection = .max }),
        ("subscriptionChangesPerSecond", Self.limits { $0.channels.subscriptionChangesPerSecond = 0 }),
        ("subscriptionChangesPerSecond", Self.limits { $0.channels.subscriptionChangesPerSecond = .max }),
        ("httpIdleTimeout", Self.limits { $0.httpAPI.httpIdleTimeout = 0 }),
        ("httpIdleTimeout", Self.limits { $0.httpAPI.httpIdleTimeout = 1e300 }),
        ("httpRequestTimeout", Self.limits { $0.httpAPI.httpRequestTimeout = 0 }),
        ("httpRequestTimeout", Self.limits { $0.httpAPI.httpRequestTimeout = .infinity }),
        ("maxOutboundBytes", Self.limits { $0.connections.maxOutboundBytes = .max }),
        ("maxOutboundBytes", Self.limits { $0.connections.maxOutboundBytes = 1_000 }),
        ("maxTotalOutboundBytes", Self.limits { $0.connections.maxTotalOutboundBytes = .max }),
        ("maxTotalOutboundBytes", Self.limits { $0.connections.maxTotalOutboundBytes = 1 }),
        ("maxHTTPConnections", Self.limits { $0.httpAPI.maxHTTPConnections = 0 }),
        ("maxConnectionsPerIP", Self.limits { $0.connections.maxConnectionsPerIP = 0 }),
        ("maxConnectionsPerIP", Self.limits { $0.connections.maxConnectionsPerIP = .max }),
        ("maxSubscriptions", Self.limits { $0.channels.maxSubscriptions = 0 }),
        ("maxSubscriptions", Self.limits { $0.channels.maxSubscriptions = .max }),
        ("closeTimeout", Self.limits { $0.connections.closeTimeout = 1e300 }),
        ("shutdownSpread", Self.limits { $0.connections.shutdownSpread = .nan }),
    ])
    func limitsHaveUpperBounds(_ member: String, _ limits: HubLimits) {
        let configuration = HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s")], limits: limits)
        #expect(throws: HubConfigurationError.invalidLimit(member)) { try configuration.validate() }
    }

    private static func limits(_ adjust: (inout HubLimits) -> Void) -> HubLimits {
        var limits = HubLimits()
        adjust(&limits)
        return limits
    }

    @Test func hugeValuesInAFileAreConfigurationErrors() async throws {
        let url = try write(#"{"apps":[{"id":"a","key":"k","secret":"s"}],"limits":{"pongTimeout":1e300}}"#)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: HubConfigurationError.invalidLimit("pongTimeout")) { try HubConfiguration.load(contentsOf: url) }
        #expect(HubConfigurationError.invalidLimit("pongTimeout").message
            == "The limit pongTimeout is out of range (allowed: more than 0 to 3600 seconds).")
        #expect(HubConfigurationError.invalidLimit("maxMessageBytes").message
            == "The limit maxMessageBytes is out of range (allowed: 1024 to 16777216).")
        // Starting a hub with it is refused the same way.
        let configuration = try HubConfiguration.load(contentsOf: url, validating: false)
        await #expect(throws: HubConfigurationError.invalidLimit("pongTimeout")) { try await HubServer.start(configuration) }
        // A size too large for an integer is a malformed file.
        let sizes = try write(#"{"apps":[{"id":"a","key":"k","secret":"s"}],"limits":{"maxMessageBytes":1e300}}"#)
        defer { try? FileManager.default.removeItem(at: sizes) }
        #expect(throws: HubConfigurationError.self) { try HubConfiguration.load(contentsOf: sizes) }
        do {
            _ = try HubConfiguration.load(contentsOf: sizes)
        } catch {
            #expect(error.code == .malformedFile)
        }
        let app = HubAppConfiguration(id: "a", key: "k", secret: "s", maxConnections: 2_000_000)
        #expect(throws: HubConfigurationError.invalidLimit("apps.maxConnections")) { try HubConfiguration(apps: [app]).validate() }
    }

    @Test func theDefaultsAreValidAndBounded() throws {
        let limits = HubLimits()
        #expect(limits.connections.maxConnections == 10_000)
        #expect(limits.channels.maxChannelsPerConnection == 1_000)
        #expect(limits.channels.subscriptionChangesPerSecond == 50)
        #expect(limits.httpAPI.httpIdleTimeout == 30)
        #expect(limits.httpAPI.httpRequestTimeout == 30)
        #expect(limits.connections.maxOutboundBytes == 1_048_576)
        #expect(limits.httpAPI.maxHTTPConnections == 1_000)
        #expect(limits.connections.maxConnectionsPerIP == nil)
        #expect(limits.channels.maxSubscriptions == 200_000)
        #expect(limits.connections.maxTotalOutboundBytes == 268_435_456)
        try HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s")], limits: limits).validate()
    }

    @Test func anOutboundBudgetSmallerThanTwoEventsIsRefused() {
        let limits = Self.limits {
            $0.channels.maxEventDataBytes = 1_000_000
            $0.connections.maxOutboundBytes = 1_048_576
        }
        let configuration = HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s")], limits: limits)
        #expect(throws: HubConfigurationError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch {
            #expect(error.code == .conflictingLimits)
            #expect(error.message.contains("maxOutboundBytes (1048576) must be at least twice the largest event frame"), "\(error.message)")
        }
        let total = Self.limits {
            $0.connections.maxOutboundBytes = 8_388_608
            $0.connections.maxTotalOutboundBytes = 4_194_304
        }
        #expect(throws: HubConfigurationError.conflictingLimits("maxTotalOutboundBytes (4194304) must be at least maxOutboundBytes (8388608)")) {
            try HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s")], limits: total).validate()
        }
    }

    /// `maxQueuedFrames` counted frames, and reset whenever the socket was briefly writable: a
    /// file that still sets it learns what replaced it, instead of having it silently ignored.
    @Test func theRemovedFrameLimitIsAClearErrorInAFile() throws {
        let url = try write(#"{"apps":[{"id":"a","key":"k","secret":"s"}],"limits":{"maxQueuedFrames":4096}}"#)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: HubConfigurationError.removedLimit("maxQueuedFrames", replacement: "maxOutboundBytes")) {
            try HubConfiguration.load(contentsOf: url)
        }
        #expect(HubConfigurationError.removedLimit("maxQueuedFrames", replacement: "maxOutboundBytes").message
            == #"The limit maxQueuedFrames was removed: set maxOutboundBytes instead (see the operator's guide, "Hub limits")."#)
    }

    /// The hub-wide sign-in deadline became each app's authorized connections: a file that still
    /// sets it is told what to set instead, and the app's timeout has its range.
    @Test func theRemovedSignInDeadlineIsAClearErrorInAFile() throws {
        let url = try write(#"{"apps":[{"id":"a","key":"k","secret":"s"}],"limits":{"userAuthenticationTimeout":30}}"#)
        defer { try? FileManager.default.removeItem(at: url) }
        let replacement = #"the app's "authorizedConnections": true and "authorizedConnectionTimeout""#
        #expect(throws: HubConfigurationError.removedLimit("userAuthenticationTimeout", replacement: replacement)) {
            try HubConfiguration.load(contentsOf: url)
        }
        for timeout in [0, -1, 1e300, .nan] {
            let app = HubAppConfiguration(id: "a", key: "k", secret: "s", authorizedConnections: true, authorizedConnectionTimeout: timeout)
            #expect(throws: HubConfigurationError.invalidLimit("apps.authorizedConnectionTimeout")) { try HubConfiguration(apps: [app]).validate() }
        }
        #expect(HubConfigurationError.invalidLimit("apps.authorizedConnectionTimeout").message.contains("more than 0 to 86400 seconds"))
        #expect(HubAppConfiguration(id: "a", key: "k", secret: "s", authorizedConnections: true).authorizationTimeout == .seconds(30))
        #expect(HubAppConfiguration(id: "a", key: "k", secret: "s", authorizedConnectionTimeout: 5).authorizationTimeout == nil)
    }

    @Test func developmentUsersNeedUniqueTokensAndIDs() {
        let app = HubAppConfiguration(id: "a", key: "k", secret: "s")
        func check(_ users: [DevelopmentUser], _ error: DevelopmentUserError) {
            #expect(throws: error) { try DevelopmentHub(configuration: HubConfiguration(apps: [app]), users: users).validate() }
        }
        check([DevelopmentUser(token: "t", id: "x"), DevelopmentUser(token: "t", id: "y")], .invalidUser(id: "y"))
        check([DevelopmentUser(token: "t", id: "")], .invalidUser(id: ""))
        check([DevelopmentUser(token: "", id: "x")], .invalidUser(id: "x"))
        check([DevelopmentUser(token: "t1", id: "x"), DevelopmentUser(token: "t2", id: "x")], .invalidUser(id: "x"))
        check([DevelopmentUser(token: "t", id: String(repeating: "u", count: 129))], .invalidUser(id: String(repeating: "u", count: 129)))
        #expect(throws: HubConfigurationError.noApps) { try DevelopmentHub(configuration: HubConfiguration(apps: [])).validate() }
    }

    @Test func descriptionsNeverShowSecretsOrTokens() {
        let configuration = DevelopmentHub(
            configuration: HubConfiguration(
                apps: [HubAppConfiguration(id: "a", key: "k", secret: "very-secret-value", encryptionMasterKey: "bWFzdGVyLWtleS1tYXN0ZXIta2V5LW1hc3Rlci1rZXk=")]),
            users: [DevelopmentUser(token: "token-of-alice", id: "alice")]
        )
        let text = "\(configuration) \(configuration.users)"
        #expect(!text.contains("very-secret-value"))
        #expect(!text.contains("token-of-alice"))
        #expect(!text.contains("bWFzdGVy"))
        #expect(text.contains("alice"))
    }

    @Test func randomSecretsAre32HexCharacters() {
        let secret = HubConfiguration.randomSecret()
        #expect(secret.count == 32)
        #expect(secret.allSatisfy { $0.isHexDigit })
        #expect(secret != HubConfiguration.randomSecret())
    }
}
