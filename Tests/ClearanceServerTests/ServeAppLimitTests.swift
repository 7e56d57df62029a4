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
        try await withCleanup {
            let body = #"{"name":"burst","channels":["news"],"data":"x"}"#
            var statuses: [Int] = []
            var refusal: HTTPResult?
            for _ in 0..<12 {
                let result = try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: body)
                statuses.append(result.status)
                if result.status == 429 { refusal = result }
            }
            // Five at once, then about one more every 200 ms while the burst lasts.
            let accepted = statuses.filter { $0 == 200 }.count
            #expect(accepted >= 5 && accepted <= 8, "\(statuses)")
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 }, "\(statuses)")
            #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
            let answer = try #require(refusal, "no 429 in \(statuses)")
            #expect(answer.json["error"] as? String == "api.rateLimited", "\(answer.body)")
            #expect((answer.json["message"] as? String)?.contains("5 events per second") == true, "\(answer.body)")
            #expect(answer.headers[.retryAfter] == "1")

            // An event to three channels counts three.
            try await Task.sleep(for: .milliseconds(1_100))
            let three = #"{"name":"wide","channels":["a","b","c"],"data":"x"}"#
            #expect(try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: three).status == 200)
            #expect(try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: three).status == 429)

            // A second later, accepted again; the other app was never limited.
            try await Task.sleep(for: .milliseconds(1_100))
            #expect(try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: body).status == 200)
            let otherSigner = try RESTRequestSigner(appID: Self.otherApp.id, key: Self.otherApp.key, secret: Self.otherApp.secret)
            for _ in 0..<12 {
                let result = try await serve.http.signed("POST", otherSigner.eventsPath, body: body, signer: otherSigner)
                #expect(result.status == 200, "\(result.body)")
            }

            // Reads have their own rate.
            var reads: [Int] = []
            for _ in 0..<4 { reads.append(try await serve.http.signed("GET", "/apps/\(TestHub.appID)/channels").status) }
            #expect(reads.prefix(2) == [200, 200] && reads.last == 429, "\(reads)")

            // Refusals are counted in the metrics' status label... and requests that fail their
            // signature never spend the app's budget.
            let forged = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "not-the-secret")
            try await Task.sleep(for: .milliseconds(1_100))
            for _ in 0..<10 {
                #expect(try await serve.http.signed("POST", forged.eventsPath, body: body, signer: forged).status == 401)
            }
            #expect(try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: body).status == 200)
        } cleanup: { await serve.stop(.kill) }
    }

    /// The test app with `limits` added, then ``otherApp``, as the JSON of `apps`.
    static func appsJSON(first limits: [String: Int]) throws -> String {
        var app = try JSONSerialization.jsonObject(with: JSONEncoder().encode(TestHub.configuration().apps[0])) as? [String: Any] ?? [:]
        for (name, value) in limits { app[name] = value }
        let other = try JSONSerialization.jsonObject(with: JSONEncoder().encode(otherApp))
        return String(decoding: try JSONSerialization.data(withJSONObject: [app, other]), as: UTF8.self)
    }
}
