import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// An app's `backendEventsPerSecond` on the hub's clock: the budget is exact while the clock
/// stands still, so what spends it (and what does not) shows without any wait.
@Suite("Hub: an app's event rate on the hub's clock", .timeLimit(.minutes(1)))
struct HubAppRateTests {
    @Test func requestsThatFailTheirSignatureNeverSpendTheBudgetAndASecondRefillsIt() async throws {
        let clock = ManualHubClock()
        let configuration = TestHub.configuration { $0.backendEventsPerSecond = 5 }
        try await TestHub.with(configuration, clock: clock) { hub in
            let http = TestHTTP(hub)
            let body = #"{"name":"burst","channels":["news"],"data":"x"}"#
            let forged = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "not-the-secret")
            for _ in 0..<10 {
                #expect(try await http.signed("POST", forged.eventsPath, body: body, signer: forged, now: clock.date).status == 401)
            }
            // The whole budget is left: five accepted, the sixth refused.
            for _ in 0..<5 {
                #expect(try await http.signed("POST", TestHub.restSigner.eventsPath, body: body, now: clock.date).status == 200)
            }
            let refused = try await http.signed("POST", TestHub.restSigner.eventsPath, body: body, now: clock.date)
            #expect(refused.status == 429, "\(refused.body)")
            // A second later on the hub's clock, the budget is whole again.
            await clock.advance(by: .seconds(1))
            for _ in 0..<5 {
                #expect(try await http.signed("POST", TestHub.restSigner.eventsPath, body: body, now: clock.date).status == 200)
            }
        }
    }
}
