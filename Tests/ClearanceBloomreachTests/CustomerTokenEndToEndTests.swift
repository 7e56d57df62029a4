import Clearance
import ClearanceBloomreach
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// The customer token through `AuthorizedClient` against the demo API, which verifies it with
/// `CustomerTokenMiddleware`: what the server really saw.
@Suite("Customer tokens end to end", .timeLimit(.minutes(1)))
struct CustomerTokenEndToEndTests {
    static let inbox = "/webxp/projects/{projectToken}/appinbox/fetch"

    static func withAPI(_ body: (DemoAPI, URL) async throws -> Void) async throws {
        let api = await DemoAPI()
        let server = try await RunningServer.start(api.router(), logger: TestHub.quietLogger)
        try await withCleanup {
            try await body(api, server.baseURL.appending(path: "/webxp/projects/demo/appinbox/fetch"))
        } cleanup: {
            await server.stop()
        }
    }

    static func client(_ api: DemoAPI, _ tokens: CustomerTokenSource) throws -> AuthorizedClient {
        AuthorizedClient(authorizer: try Bloomreach.authorizer(.advanced(apiKey: api.apiKey, customerTokens: tokens)))
    }

    @Test func aRejectedTokenIsRefreshedOnceAndTheRequestRetriedOnce() async throws {
        try await Self.withAPI { api, inbox in
            let rotated = await CustomerTokenMinter(key: try CustomerTokenKey(id: DemoAPI.customerTokenKeyID, secret: String(repeating: "r", count: 32)))
            let calls = Locked(0)
            let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"], notificationCenter: nil) { customer in
                let call = calls.withLock { $0 += 1; return $0 }
                return call == 1
                    ? try await rotated.mint(customerIDs: customer.values, ttl: 600)         // signed with a retired secret
                    : try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: Date().addingTimeInterval(600))
            }
            let log = EventLog(tokens)
            let (response, _) = try await Self.client(api, tokens).send(.post, inbox, body: Data("{}".utf8))
            #expect(response.status == .ok)
            #expect(await api.stats.count(Self.inbox) == 2 && calls.withLock { $0 } == 2)
            try await log.expect(["received", "rejected", "received"])
        }
    }

    @Test func aTokenTheServerAlwaysRefusesEndsUnauthorizedAfterOneRetry() async throws {
        try await Self.withAPI { api, inbox in
            let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"], notificationCenter: nil) { customer in
                try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: Date().addingTimeInterval(-3600)) // expired server-side
            }
            let error = await #expect(throws: AuthorizationError.self) { try await Self.client(api, tokens).send(.post, inbox, body: Data("{}".utf8)) }
            #expect(error?.code == .unauthorized)
            #expect(error?.response?.bodySnippet.contains("customer_token.expired") == true, "\(String(describing: error))")
            #expect(await api.stats.count(Self.inbox) == 2)
        }
    }

    @Test func aCustomerSwitchDuringAFetchNeverSendsThePreviousCustomersToken() async throws {
        try await Self.withAPI { api, inbox in
            let provider = TestProvider()
            provider.hold()
            let minted = Locked<[String: String]>([:])
            let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"], notificationCenter: nil) { customer in
                _ = try await provider.provider(customer)                         // held until released
                let token = try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: Date().addingTimeInterval(600))
                minted.withLock { $0[customer.values["registered"] ?? "?"] = token }
                return token
            }
            let client = try Self.client(api, tokens)
            let janesRequest = Task { try await client.send(.post, inbox, body: Data("{}".utf8)) }
            try await provider.waitUntilHeld(0)
            await tokens.identify(["registered": "john@example.com"])
            let johnsRequest = Task { try await client.send(.post, inbox, body: Data("{}".utf8)) }
            try await provider.waitUntilHeld(1)
            provider.release(0)
            try await eventually("jane's token minted") { minted.withLock { $0["jane@example.com"] != nil } }
            provider.release(1)
            #expect(try await janesRequest.value.0.status == .ok)
            #expect(try await johnsRequest.value.0.status == .ok)
            #expect(await api.stats.customers == [["registered": "john@example.com"], ["registered": "john@example.com"]])
        }
    }
}
