import Clearance
import ClearanceBloomreach
import ClearanceTesting
import HTTPTypes
import Testing

@Suite("Bloomreach preset")
struct BloomreachPresetTests {
    @Test func privateEndpointsTakeTheCustomerTokenOnlyWithAdvancedAuth() throws {
        let advanced = try Bloomreach.policy(advancedAuth: true)
        let basic = try Bloomreach.policy(advancedAuth: false)
        let inbox = HTTPRequest(method: .post, scheme: "https", authority: "api.exponea.com", path: "/webxp/projects/tok/appinbox/markasread")
        let track = HTTPRequest(method: .post, scheme: "https", authority: "api.exponea.com", path: "/track/v2/projects/tok/customers/events")
        let inApp = HTTPRequest(method: .post, scheme: "https", authority: "api.exponea.com", path: "/webxp/s/tok/inappmessages?v=1")
        #expect(advanced.requirement(for: inbox).0 == .source(Bloomreach.customerTokenSource))
        #expect(basic.requirement(for: inbox).0 == .source(Bloomreach.apiKeySource))
        #expect(advanced.requirement(for: track).0 == .source(Bloomreach.apiKeySource))
        #expect(advanced.requirement(for: inApp).0 == .source(Bloomreach.apiKeySource))
    }

    @Test func anEmptyAPIKeyIsAnErrorWithALogLine() {
        let logs = LogCapture()
        let tokens = CustomerTokenSource(notificationCenter: nil) { _ in "jwt" }
        let error = #expect(throws: AuthorizationError.self) {
            try Bloomreach.authorizer(.advanced(apiKey: "  ", customerTokens: tokens), logger: logs.logger())
        }
        #expect(error?.code == .misconfigured)
        #expect(logs.all.contains { $0.contains("the API key is empty") })
        #expect(throws: Never.self) { try Bloomreach.authorizer(.apiKey("k")) }
        #expect(throws: Never.self) { try Bloomreach.authorizer(.advanced(apiKey: "k", customerTokens: tokens)) }
    }

    @Test func advancedAuthPutsTheCustomerTokenOnPrivateEndpointsAndTheKeyOnPublicOnes() async throws {
        let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"], notificationCenter: nil) { _ in "header.payload.signature" }
        let authorizer = try Bloomreach.authorizer(.advanced(apiKey: "public-key", customerTokens: tokens))
        let inbox = HTTPRequest(method: .post, scheme: "https", authority: "api.exponea.com", path: "/webxp/projects/tok/appinbox/fetch")
        let track = HTTPRequest(method: .post, scheme: "https", authority: "api.exponea.com", path: "/track/v2/projects/tok/customers")
        #expect(try await authorizer.credential(for: inbox)?.credential == .bearer("header.payload.signature"))
        #expect(try await authorizer.credential(for: track)?.credential == .apiKey("public-key"))
    }
}
