@testable import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Each app's own limits over the hub's: client events, presence members, connections; and the
/// configuration's checks of them.
@Suite("Hub: per-app limits", .timeLimit(.minutes(2)))
struct HubAppLimitTests {
    @Test func anAppsClientEventRateOverridesTheHubs() async throws {
        let configuration = TestHub.configuration(limits: TestHub.limits { $0.channels.clientEventsPerSecond = 10 }) { $0.clientEventsPerSecond = 2 }
        try await TestHub.with(configuration) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "private-chat")
            for index in 0..<3 {
                client.send(TestHub.frame(event: "client-typing", channel: "private-chat", data: ["n": index]))
            }
            let refusal = try await client.next(event: "pusher:error")
            #expect(refusal.errorCode == 4301, "\(refusal)")
            await client.disconnect()
        }
    }

    @Test func anAppsPresenceMemberLimitOverridesTheHubs() async throws {
        let configuration = TestHub.configuration { $0.maxPresenceMembers = 1 }
        try await TestHub.with(configuration) { hub in
            let (first, firstID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(first, socketID: firstID, channel: "presence-room", channelData: TestHub.presenceData("alice"))
            let (second, secondID) = try await TestHub.connect(hub)
            second.send(TestHub.subscribeFrame(channel: "presence-room", socketID: secondID, channelData: TestHub.presenceData("bob")))
            let refusal = try await second.next(event: "pusher:subscription_error")
            #expect("\(refusal)".contains("maximum of 1 members"), "\(refusal)")
            await first.disconnect()
            await second.disconnect()
        }
    }

    @Test func aReadRateAnswers429WithAJSONErrorAndRetryAfter() async throws {
        let configuration = TestHub.configuration { $0.readRequestsPerSecond = 1 }
        // The bucket refills on the hub's clock, which stands still here: one read passes.
        try await TestHub.with(configuration, clock: ManualHubClock()) { hub in
            let http = TestHTTP(hub)
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for index in 0..<20 {
                    group.addTask { try await http.signed("GET", index.isMultiple(of: 2) ? "/apps/\(TestHub.appID)/channels" : "/apps/\(TestHub.appID)/channels/news") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.status)).isSubset(of: [200, 429]), "\(results.map(\.status))")
            let refused = try #require(results.first { $0.status == 429 })
            #expect(results.contains { $0.status == 200 })
            #expect(refused.json["error"] as? String == "api.rateLimited", "\(refused.body)")
            #expect(refused.headers[.retryAfter] == "1")
            // Triggers are not reads.
            try await TestHub.trigger(hub, event: "e", channels: ["news"], data: "x")
            #expect(hub.counters.value(.httpRequestsRateLimited) == results.filter { $0.status == 429 }.count)
        }
    }

    @Test func aBucketHoldsOneSecondRefillsAtItsRateAndAnEventWiderThanItIsRefused() {
        let rates = AppRequestRates()
        let start = ContinuousClock.now
        func take(_ count: Int, at seconds: Double, rate: Int? = 5) -> Bool {
            rates.take(count, .backendEvents, appID: "a", perSecond: rate, at: start + .seconds(seconds))
        }
        #expect(take(3, at: 0))
        #expect(!take(3, at: 0))       // 2 left: an event to three channels waits
        #expect(take(3, at: 0.2))      // 2 + 1 refilled
        #expect(!take(1, at: 0.2))
        #expect(!take(10, at: 1.2))    // more than a second's worth: never (naming 100 channels passes no rate)
        #expect(take(5, at: 1.2))      // the refusal spent nothing: the full bucket is there
        #expect(!take(1, at: 1.2))
        #expect(take(1, at: 1.2, rate: nil))   // no limit
        #expect(take(1, at: 1.2, rate: 100))   // a new rate: a new, full bucket
        #expect(rates.take(5, .readRequests, appID: "a", perSecond: 5, at: start))  // reads count apart
    }

    @Test func appLimitsOutsideTheirRangesAreRefusedByName() throws {
        let cases: [(String, (inout HubAppConfiguration) -> Void)] = [
            ("apps.backendEventsPerSecond", { $0.backendEventsPerSecond = 0 }),
            ("apps.readRequestsPerSecond", { $0.readRequestsPerSecond = -1 }),
            ("apps.clientEventsPerSecond", { $0.clientEventsPerSecond = 10_001 }),
            ("apps.maxPresenceMembers", { $0.maxPresenceMembers = 0 }),
            ("apps.maxConnections", { $0.maxConnections = -1 }),
        ]
        for (member, adjust) in cases {
            let configuration = TestHub.configuration(adjustApp: adjust)
            #expect(throws: HubConfigurationError.invalidLimit(member)) { try configuration.validate() }
            #expect(HubConfigurationError.invalidLimit(member).message.contains("allowed:"), "\(member)")
        }
        var limits = HubLimits()
        limits.httpAPI.backendEventsPerSecond = 0
        #expect(throws: HubConfigurationError.invalidLimit("backendEventsPerSecond")) {
            try HubConfiguration(apps: TestHub.configuration().apps, limits: limits).validate()
        }
    }

    @Test func appLimitsAreReadFromTheFileAndShownInTheDescription() throws {
        let json = #"""
            {"apps": [{"id": "1", "key": "k", "secret": "s", "backendEventsPerSecond": 5, "readRequestsPerSecond": 7,
                       "clientEventsPerSecond": 3, "maxPresenceMembers": 20, "maxConnections": 50}],
             "limits": {"backendEventsPerSecond": 100, "readRequestsPerSecond": 200}}
            """#
        let configuration = try JSONDecoder().decode(HubConfiguration.self, from: Data(json.utf8))
        let app = configuration.apps[0]
        #expect(app.backendEventsPerSecond == 5 && app.readRequestsPerSecond == 7 && app.clientEventsPerSecond == 3)
        #expect(app.maxPresenceMembers == 20 && app.maxConnections == 50)
        #expect(configuration.limits.httpAPI.backendEventsPerSecond == 100 && configuration.limits.httpAPI.readRequestsPerSecond == 200)
        #expect(HubLimits().httpAPI.backendEventsPerSecond == nil && HubLimits().httpAPI.readRequestsPerSecond == nil)
        #expect("\(app)".contains("backendEventsPerSecond: 5") && !"\(app)".contains("\"s\""), "\(app)")
    }
}
