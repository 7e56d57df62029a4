import Clearance
import ClearanceBloomreach
import ClearanceHTTP
import Foundation
import Testing

/// The Swift blocks of `ClearanceBloomreach`'s landing page and doc comments, compiled and run
/// (no request is sent); `DocumentationTests` checks the documents show the marked regions.
@Suite("Doc examples: Bloomreach")
struct BloomreachDocExamplesTests {
    /// The app's backend, as the landing page calls it.
    struct Backend: Sendable {
        func customerToken(for customer: CustomerIDs) async throws -> String? { nil }
    }

    /// The app's backend, as `CustomerTokenSource`'s doc comment calls it.
    struct ValuesBackend: Sendable {
        func customerToken(for customerIDs: [String: String]) async throws -> String? { nil }
    }

    @Test func landingPage() async throws {
        let (backend, key) = (Backend(), "public-api-key")
        // snippet: begin
        let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"]) { customer in
            try await backend.customerToken(for: customer)          // nil or "": not_provided, nothing sent
        }
        let client = AuthorizedClient(authorizer: try Bloomreach.authorizer(.advanced(apiKey: key, customerTokens: tokens)))
        await tokens.identify(["registered": "john@example.com"])   // jane's token is gone
        // snippet: end
        #expect(tokens.customer.values == ["registered": "john@example.com"])
        #expect(client.authorizer.policy.rules.count > 0)
    }

    @Test func customerTokenSourceDocComment() async throws {
        let (backend, key) = (ValuesBackend(), "public-api-key")
        // snippet: begin
        let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"]) { customer in
            try await backend.customerToken(for: customer.values)   // nil or "": TOKEN_NOT_PROVIDED
        }
        let authorizer = try Bloomreach.authorizer(.advanced(apiKey: key, customerTokens: tokens))
        await tokens.identify(["registered": "john@example.com"])   // jane's token is gone
        // snippet: end
        #expect(tokens.customer.values == ["registered": "john@example.com"])
        #expect(authorizer.policy.rules.count > 0)
    }
}
