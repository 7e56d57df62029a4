import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Per-app limits in `clearance serve` as built: an app's `backendEventsPerSecond` and
/// `readRequestsPerSecond` answer a burst past them with 429 and a JSON error, then accept again
/// once a second has refilled them; another app is not slowed by them.
@Suite("clearance serve: per-app limits", .timeLimit(.minutes(3)))
struct ServeAppLimitTests {
    static let otherApp = HubAppConfiguration(id: "200002", key: "other-key", secret: "other-secret")

    @Test func aBackendEventRateOfFiveAnswersABurstWith429ThenAcceptsAgain() async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits(), members: [
            "apps": try Self.appsJSON(first: ["backendEventsPerSecond": 5, "readRequestsPerSecond": 2]),
        ])
        defer { try? FileManager.default.removeItem(at: file) }
        let serve = try await ServeProcess.start(configuration: file, port: port, development: false)
        try await serve.killed {
            let body = #"{"name":"burst","channels":["news"],"data":"x"}"#
            let http = serve.http
            // Forty at once (more under a sanitizer) against five per second: however slow the machine, most are refused.
            let burst = 40 * TestTiming.scale
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for _ in 0..<burst { group.addTask { try await http.signed("POST", TestHub.restSigner.eventsPath, body: body) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let statuses = results.map(\.status)
            #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
            let accepted = statuses.filter { $0 == 200 }.count
            #expect(accepted >= 5 && accepted < burst, "\(statuses)")
            let answer = try #require(results.first { $0.status == 429 }, "no 429 in \(statuses)")
            #expect(answer.json["error"] as? String == "api.rateLimited", "\(answer.body)")
            #expect((answer.json["message"] as? String)?.contains("5 events per second") == true, "\(answer.body)")
            #expect(answer.headers[.retryAfter] == "1")

            // Accepted again once the second refilled it (a refused request spends nothing);
            // the other app was never limited.
            try await eventually("accepted again") {
                try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: body).status == 200
            }
            let otherSigner = try RESTRequestSigner(appID: Self.otherApp.id, key: Self.otherApp.key, secret: Self.otherApp.secret)
            for _ in 0..<12 {
                let result = try await serve.http.signed("POST", otherSigner.eventsPath, body: body, signer: otherSigner)
                #expect(result.status == 200, "\(result.body)")
            }

            // Reads have their own rate.
            let reads = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await http.signed("GET", "/apps/\(TestHub.appID)/channels").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reads.contains(200) && reads.contains(429), "\(reads)")
            // (That requests failing their signature never spend the budget needs a full budget,
            // which a real process's clock gives only by waiting: `HubAppRateTests` shows it on
            // the hub's clock.)
        }
    }

    /// The test app with `limits` added, then ``otherApp``, as the JSON of `apps`.
    static func appsJSON(first limits: [String: Int]) throws -> String {
        var app = try JSONSerialization.jsonObject(with: JSONEncoder().encode(TestHub.configuration().apps[0])) as? [String: Any] ?? [:]
        for (name, value) in limits { app[name] = value }
        let other = try JSONSerialization.jsonObject(with: JSONEncoder().encode(otherApp))
        return String(decoding: try JSONSerialization.data(withJSONObject: [app, other]), as: UTF8.self)
    }
}
