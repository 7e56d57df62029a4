import Clearance
import ClearanceBloomreach
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceTestSupport
import Foundation
import Testing

/// The guide "Coming from the Bloomreach SDK"
/// (`Sources/ClearanceBloomreach/Documentation.docc/ComingFromBloomreachSDK.md`): every snippet
/// compiled and run, in order, against the development API. The guide's Swift blocks are the
/// marked regions below, line for line.
@Suite("Guide: coming from the Bloomreach SDK", .timeLimit(.minutes(1)))
struct GuideComingFromBloomreachSDKTests {
    static let guide = "Sources/ClearanceBloomreach/Documentation.docc/ComingFromBloomreachSDK.md"

    /// The app's backend: a token for a registered customer, none for an anonymous one.
    struct Backend: Sendable {
        let api: DemoAPI
        func customerToken(for customer: CustomerIDs) async throws -> String? {
            guard !customer.values.isEmpty else { return nil }
            return try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: Date().addingTimeInterval(3600))
        }
    }

    @Test func perEndpointCredentialsTheProviderAndAnonymize() async throws {
        let apiKey = "public-api-key"
        let demo = await DemoAPI(apiKey: apiKey)
        let server = try await RunningServer.start(demo.router(), logger: TestHub.quietLogger)
        let (backend, api) = (Backend(api: demo), server.baseURL)
        try await withCleanup {
            // snippet: begin
            let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"]) { customer in
                try await backend.customerToken(for: customer)          // getAuthorizationToken(); nil: not_provided, nothing sent
            }
            let client = AuthorizedClient(authorizer: try Bloomreach.authorizer(
                .advanced(apiKey: apiKey, customerTokens: tokens)))      // authorization: .token(…), advancedAuthEnabled: true
            let (inbox, _) = try await client.send(.post, api.appending(path: "/webxp/projects/p1/appinbox/fetch"), body: Data("{}".utf8))
            let (tracked, _) = try await client.send(.post, api.appending(path: "/track/v2/projects/p1/customers/events"), body: Data("{}".utf8))
            print(inbox.status, tracked.status)                         // Bearer <customer token>, then Token <API key>
            // snippet: end
            #expect(inbox.status == .ok && tracked.status == .ok)
            #expect(await demo.stats.customers == [["registered": "jane@example.com"]])

            // snippet: begin
            var policy = try Bloomreach.policy(advancedAuth: true)
            try policy.require(.source(Bloomreach.customerTokenSource), for: "POST /loyalty/**")   // an endpoint of your own
            let authorizer = try RequestAuthorizer(policy: policy, sources: [
                Bloomreach.apiKeySource: StaticCredentialSource(.apiKey(apiKey)), Bloomreach.customerTokenSource: tokens])
            // snippet: end
            #expect(authorizer.policy.rules.count == (try Bloomreach.policy(advancedAuth: true)).rules.count + 1)

            let before = await demo.stats.total
            // snippet: begin
            let events = tokens.events                                  // also NotificationCenter: CustomerTokenEvent.notificationName
            await tokens.anonymize()                                    // Exponea.shared.anonymize(): jane's token is dropped
            do {
                _ = try await client.send(.post, api.appending(path: "/webxp/projects/p1/appinbox/fetch"), body: Data("{}".utf8))
            } catch {
                print(AuthorizationError(wrapping: error).qualifiedCode) // clearance.missingCredential: nothing was sent
            }
            for await event in events {
                print(event)                                            // customer_changed(…), not_provided(…)
                if event.name == "not_provided" { break }
            }
            // snippet: end
            #expect(await demo.stats.total == before, "nothing was sent without a credential")
            #expect(tokens.expiresAt == nil)
        } cleanup: {
            await server.stop()
        }
    }

    /// The guide's Swift blocks are exactly this file's marked regions, in order.
    @Test func theGuideShowsThisCode() throws {
        let blocks = DocumentedSnippets.swiftBlocks(in: try DocumentedSnippets.packageFile(Self.guide))
        let regions = DocumentedSnippets.markedRegions(in: try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(!blocks.isEmpty && blocks == regions, "\(Self.guide) and this test drifted apart")
    }
}
