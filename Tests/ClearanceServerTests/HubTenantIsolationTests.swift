import ClearanceServer
import ClearanceSigning
import ClearanceTesting
import ClearanceTestSupport
import Foundation
import Testing

/// The smaller findings of the hub's tenant-isolation review, each on a hub in this process: the
/// HTTP API answers a forged request from its head, a disabled app's API is closed, one request
/// cannot spend more than its app's rate, connections that have not authorized are bounded per
/// address, a re-key keeps the new key's clients, and a terminated user cannot come straight
/// back with a signature made before the terminate.
@Suite("Hub: one app, or one client, cannot starve another", .timeLimit(.minutes(2)))
struct HubTenantIsolationTests {
    static let otherApp = HubAppConfiguration(id: "200002", key: "other-key", secret: "other-secret")

    /// A POST head declaring `declared` bytes, then `sent` bytes of body, then silence.
    private func trickledPost(_ hub: HubServer, query: String, declared: Int, sent: Int) throws -> RawSocket {
        let socket = try RawSocket(host: "127.0.0.1", port: hub.endpoint.port)
        let head = "POST /apps/\(TestHub.appID)/events?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(declared)\r\n\r\n"
        try socket.sendAll(Array(head.utf8) + Array(repeating: UInt8(ascii: " "), count: sent))
        return socket
    }

    @Test func aForgedOrUnsignedRequestIsRefusedFromItsHeadWithoutWaitingForItsBody() async throws {
        try await TestHub.with { hub in
            let wrong = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "not-the-secret-of-this-app-0123456789")
            let body = Data(repeating: UInt8(ascii: " "), count: 204_800)
            let forged = try wrong.sign(method: "POST", path: "/apps/\(TestHub.appID)/events", body: body).percentEncodedQuery
            for query in [forged, "auth_key=\(TestHub.key)"] {
                let socket = try trickledPost(hub, query: query, declared: 204_800, sent: 1_024)
                // The body never comes: the answer does, at once.
                let answer = await socket.httpResponse(timeout: .seconds(5))
                #expect(answer?.hasPrefix("HTTP/1.1 401") == true, "\(answer ?? "no answer within 5 s")")
                socket.shutdownSocket()
            }
            // A good signature still waits for its body, then is checked whole.
            let good = try TestHub.restSigner.sign(method: "POST", path: "/apps/\(TestHub.appID)/events", body: body).percentEncodedQuery
            let waiting = try trickledPost(hub, query: good, declared: 204_800, sent: 1_024)
            #expect(await waiting.httpResponse(timeout: .milliseconds(500)) == nil, "waits for the body it was signed with")
            waiting.shutdownSocket()
        }
    }

    @Test func anAppRemovedOrDisabledWhileTheBodyArrivesIsRefused() async throws {
        let configuration = TestHub.configuration(extraApps: [Self.otherApp])
        let reloader = HubReloader()
        let capture = LogCapture()
        let hub = try await HubServer.start(configuration, logger: capture.logger(), reloader: reloader)
        /// Waits until the hub checked `count` heads in all (the body is awaited from then on).
        func headsVerified(_ count: Int) async throws {
            try await eventually("\(count) heads verified") { capture.all.filter { $0.contains("hub.api.head.verified") }.count >= count }
        }
        try await withCleanup {
            let filler = String(repeating: "x", count: 2_000)
            let body = Data(#"{"name":"e","channel":"c","data":"\#(filler)"}"#.utf8)
            func halfSent() throws -> RawSocket {
                let query = try TestHub.restSigner.sign(method: "POST", path: "/apps/\(TestHub.appID)/events", body: body).percentEncodedQuery
                let socket = try RawSocket(host: "127.0.0.1", port: hub.endpoint.port)
                let head = "POST /apps/\(TestHub.appID)/events?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.count)\r\n\r\n"
                try socket.sendAll(Array(head.utf8) + Array(body.prefix(1_000)))
                return socket
            }
            // Disabled while the body arrives: 403.
            let first = try halfSent()
            try await headsVerified(1)
            var disabled = configuration
            disabled.apps[0].enabled = false
            _ = try await reloader.reload(disabled)
            try first.sendAll(Array(body.dropFirst(1_000)))
            let forbidden = await first.httpResponse(timeout: .seconds(10))
            #expect(forbidden?.hasPrefix("HTTP/1.1 403") == true, "\(forbidden ?? "no answer")")
            first.shutdownSocket()
            // Enabled again, then removed while the body arrives: 401.
            _ = try await reloader.reload(configuration)
            let second = try halfSent()
            try await headsVerified(2)
            var removed = configuration
            removed.apps.removeFirst()
            _ = try await reloader.reload(removed)
            try second.sendAll(Array(body.dropFirst(1_000)))
            let unauthorized = await second.httpResponse(timeout: .seconds(10))
            #expect(unauthorized?.hasPrefix("HTTP/1.1 401") == true, "\(unauthorized ?? "no answer")")
            second.shutdownSocket()
        } cleanup: {
            await hub.stop()
        }
    }

    @Test func aDisabledAppsHTTPAPIAnswers403() async throws {
        var configuration = TestHub.configuration(extraApps: [Self.otherApp])
        configuration.apps[1].enabled = false
        try await TestHub.with(configuration) { hub in
            let other = try RESTRequestSigner(appID: Self.otherApp.id, key: Self.otherApp.key, secret: Self.otherApp.secret)
            let response = try await TestHTTP(hub).signed(
                "POST", "/apps/\(Self.otherApp.id)/events", body: #"{"name":"e","channel":"c","data":"x"}"#, signer: other)
            #expect(response.status == 403)
            #expect(response.json["error"] as? String == "api.appDisabled", "\(response.body)")
            // The enabled app is served.
            #expect(try await TestHTTP(hub).signed("POST", "/apps/\(TestHub.appID)/events", body: #"{"name":"e","channel":"c","data":"x"}"#).status == 200)
        }
    }

    @Test func oneRequestNamingMoreChannelsThanTheRateHoldsIsRefusedWith429() async throws {
        let configuration = TestHub.configuration { $0.backendEventsPerSecond = 5 }
        // The bucket refills on the hub's clock, which stands still here.
        try await TestHub.with(configuration, clock: ManualHubClock()) { hub in
            let channels = (0..<6).map { #""c\#($0)""# }.joined(separator: ",")
            let many = try await TestHTTP(hub).signed("POST", "/apps/\(TestHub.appID)/events", body: #"{"name":"e","channels":[\#(channels)],"data":"x"}"#)
            #expect(many.status == 429, "\(many.body)")
            #expect(many.headers[.retryAfter] == "1")
            // Within the rate, the same app is served (nothing was spent by the refusal).
            let five = (0..<5).map { #""c\#($0)""# }.joined(separator: ",")
            #expect(try await TestHTTP(hub).signed("POST", "/apps/\(TestHub.appID)/events", body: #"{"name":"e","channels":[\#(five)],"data":"x"}"#).status == 200)
        }
    }

    @Test func connectionsThatHaveNotAuthorizedAreBoundedPerAddressUntilTheyAuthorize() async throws {
        let configuration = TestHub.configuration(limits: TestHub.limits { $0.connections.maxUnauthorizedConnectionsPerIP = 3 }) { app in
            app.authorizedConnections = true
            app.authorizedConnectionTimeout = 120
        }
        try await TestHub.with(configuration) { hub in
            var waiting: [(TestWebSocketClient, String)] = []
            for _ in 0..<3 { waiting.append(try await TestHub.connect(hub)) }
            let refused = try TestWebSocketClient(url: hub.webSocketURL())
            #expect(try await refused.closeCode() == 4100)
            // One of them signs in: its place is free for a newcomer.
            let (client, socketID) = waiting[0]
            let userData = #"{"id":"alice"}"#
            let auth = try TestHub.signer.authenticateUser(socketID: socketID, userData: userData).auth
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": userData]))
            _ = try await client.next(event: "pusher:signin_success")
            let (newcomer, _) = try await TestHub.connect(hub)
            for (client, _) in waiting { await client.disconnect() }
            await newcomer.disconnect()
        }
    }

    @Test func aRekeyClosesTheOldKeysConnectionsAndKeepsTheNewKeys() async throws {
        let configuration = TestHub.configuration(extraApps: [Self.otherApp])
        let reloader = HubReloader()
        let hub = try await HubServer.start(configuration, logger: TestHub.quietLogger, reloader: reloader)
        try await withCleanup {
            let (old, _) = try await TestHub.connect(hub)
            var rekeyed = configuration
            rekeyed.apps[0].key = "new-test-key"
            _ = try await reloader.reload(rekeyed)
            #expect(try await old.closeCode() == 4001)
            let (renewed, renewedID) = try await TestHub.connect(hub, key: "new-test-key")
            // The same configuration again (a second SIGHUP): nothing is re-keyed, nothing closed.
            rekeyed.apps[0].secret = "rotated-secret"
            let report = try await reloader.reload(rekeyed)
            #expect(report.rekeyed.isEmpty && report.closedConnections == 0, "\(report)")
            renewed.send(#"{"event":"pusher:subscribe","data":{"channel":"news"}}"#)
            #expect(try await renewed.next(event: "pusher_internal:subscription_succeeded").channel == "news")
            #expect(renewedID.contains("."))
            await renewed.disconnect()
        } cleanup: {
            await hub.stop()
        }
    }

    @Test func aTerminatedUserCannotSignInOrJoinAsThemselvesWithinTheGracePeriod() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(clock: clock) { hub in
            // A spare socket got its sign-in signed before the terminate.
            let (spare, spareID) = try await TestHub.connect(hub)
            let userData = #"{"id":"mallory"}"#
            let savedAuth = try TestHub.signer.authenticateUser(socketID: spareID, userData: userData).auth
            let (first, firstID) = try await TestHub.connect(hub)
            let firstAuth = try TestHub.signer.authenticateUser(socketID: firstID, userData: userData).auth
            first.send(TestHub.frame(event: "pusher:signin", data: ["auth": firstAuth, "user_data": userData]))
            _ = try await first.next(event: "pusher:signin_success")

            #expect(try await TestHTTP(hub).signed("POST", "/apps/\(TestHub.appID)/users/mallory/terminate_connections", body: "{}").status == 200)
            #expect(try await first.closeCode() == 4009)

            spare.send(TestHub.frame(event: "pusher:signin", data: ["auth": savedAuth, "user_data": userData]))
            let refused = try await spare.next(event: "pusher:error")
            #expect((refused.dataObject["message"] as? String)?.contains("ended this user's connections") == true, "\(refused)")
            // Joining a presence channel as the user is refused too; another user joins.
            spare.send(TestHub.subscribeFrame(channel: "presence-room", socketID: spareID, channelData: TestHub.presenceData("mallory")))
            let presence = try await spare.next(event: "pusher:subscription_error")
            #expect(presence.dataObject["status"] as? Int == 403, "\(presence)")
            try await TestHub.subscribe(spare, socketID: spareID, channel: "presence-lobby", channelData: TestHub.presenceData("trent"))
            // Within the grace period (60 s by default) still refused; after it, welcome again.
            await clock.advance(by: .seconds(59))
            spare.send(TestHub.frame(event: "pusher:signin", data: ["auth": savedAuth, "user_data": userData]))
            #expect(try await spare.next(event: "pusher:error").dataObject["message"] as? String != nil)
            await clock.advance(by: .seconds(1))
            spare.send(TestHub.frame(event: "pusher:signin", data: ["auth": savedAuth, "user_data": userData]))
            _ = try await spare.next(event: "pusher:signin_success")
            await spare.disconnect()
        }
    }
}

/// The cache channels' kept events, bounded per app as well as in all.
@Suite("Event cache: each app within its part")
struct EventCacheShareTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func entry(_ frame: String, expiresIn seconds: Double) -> EventCache.Entry {
        EventCache.Entry(frame: frame, triggeredAt: now, expiresAt: now.addingTimeInterval(seconds))
    }

    @Test func anAppPastItsPartPushesOutOnlyItsOwnEntries() {
        var cache = EventCache()
        let other = ChannelTable.Key(appID: "b", name: "cache-b")
        cache.store(entry("b", expiresIn: 10), for: other, maxChannels: 10, maxChannelsPerApp: 3, now: now)
        // App a triggers on 20 cache channels, each expiring later than the last.
        for index in 0..<20 {
            cache.store(entry("a\(index)", expiresIn: 100 + Double(index)), for: ChannelTable.Key(appID: "a", name: "cache-\(index)"),
                        maxChannels: 10, maxChannelsPerApp: 3, now: now)
        }
        #expect(cache.count(of: "a") == 3)
        #expect(cache.entry(for: other, at: now)?.frame == "b", "the other app's entry stays")
        // App a keeps its newest three (those that expire last).
        #expect((17..<20).allSatisfy { cache.entry(for: ChannelTable.Key(appID: "a", name: "cache-\($0)"), at: now) != nil })
        #expect(cache.count == 4)
    }

    @Test func theHubsPolicyGivesEachAppItsPartWhenItServesSeveral() {
        let limits = HubLimits { $0.channels.maxCachedChannels = 1_000 }
        #expect(limits.appPart(of: limits.channels.maxCachedChannels, apps: 1) == 1_000)
        #expect(limits.appPart(of: limits.channels.maxCachedChannels, apps: 2) == 250)
        #expect(EventCachePolicy(ttl: .seconds(1), maxChannels: 0, maxChannelsPerApp: 1).maxChannelsPerApp == 0)
    }
}
