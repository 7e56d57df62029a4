import Clearance
import ClearanceBloomreach
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import ClearanceStore
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The README's customer-token snippets (also in `Clearance`'s tour), compiled and run: the client half against the demo
/// API, the server half on its own router. Keep the two in step.
@Suite("README customer tokens example", .timeLimit(.minutes(1)))
struct ReadmeCustomerTokensExampleTests {
    /// Stands in for the app's backend.
    struct Backend: Sendable {
        let api: DemoAPI
        func customerToken(for customer: CustomerIDs) async throws -> String? {
            try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: Date().addingTimeInterval(3600))
        }
    }

    @Test func clientHalf() async throws {
        let demo = await DemoAPI(apiKey: "public-api-key")
        let server = try await RunningServer.start(demo.router(), logger: TestHub.quietLogger)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (backend, api) = (Backend(api: demo), server.baseURL)
        let (tokenFile, keyFile) = (directory.file("customer-token.json"), directory.file("session.key"))

        // snippet: begin
        let tokens = CustomerTokenSource(
            customer: ["registered": "jane@example.com"],
            store: StoredCustomerToken.fileStore(at: tokenFile, key: try .loadOrCreate(file: keyFile))
        ) { customer in
            try await backend.customerToken(for: customer)              // nil or "": not_provided, nothing sent
        }
        let bloomreach = AuthorizedClient(authorizer: try Bloomreach.authorizer(
            .advanced(apiKey: "public-api-key", customerTokens: tokens)))
        let (inbox, _) = try await bloomreach.send(.post, api.appending(path: "/webxp/projects/p1/appinbox/fetch"), body: Data("{}".utf8))
        print(inbox.status, tokens.expiresAt ?? .distantFuture)         // 200 OK, and the exp read from the token
        let events = tokens.events                                      // made before identify: it sees what follows
        await tokens.identify(["registered": "john@example.com"])       // jane's token is gone, here and in the store
        for await event in events { print(event.name); break }         // about_to_expire, expired, rejected, not_provided, …
        // snippet: end
        #expect(inbox.status == .ok)
        #expect(tokens.expiresAt == nil && !FileManager.default.fileExists(atPath: tokenFile.path))
        #expect(await demo.stats.customers == [["registered": "jane@example.com"]])
        await server.stop()
    }

    @Test func serverHalf() async throws {
        let privateKeySecret = "the private API key's secret, 32+ bytes"
        // snippet: begin
        let key = try CustomerTokenKey(id: "private-key-id", secret: privateKeySecret)   // customer_token.weakSecret if < 32 bytes
        let jwt = try await CustomerTokenMinter(key: key).mint(customerIDs: ["registered": "jane@example.com"], ttl: 3600)
        let verifier = try await CustomerTokenVerifier(keys: [key], leeway: 30)
        let router = Router(context: BasicCustomerTokenRequestContext.self)
        router.group("webxp").add(middleware: CustomerTokenMiddleware(verifier: verifier))
            .post("projects/{projectToken}/appinbox/fetch") { _, context in
                "inbox of \(context.customerToken?.customerIDs["registered"] ?? "?")"   // the verified customer
            }
        // snippet: end

        let server = try await RunningServer.start(router, logger: TestHub.quietLogger)
        var request = HTTPRequest(method: .post, url: server.baseURL.appending(path: "/webxp/projects/p1/appinbox/fetch"))
        request.headerFields[.authorization] = "Bearer \(jwt)"
        let (response, body) = try await TestHub.http.send(request, body: Data())
        #expect(response.status == .ok && String(decoding: body, as: UTF8.self) == "inbox of jane@example.com")
        #expect(throws: CustomerTokenError.weakSecret(byteCount: 5)) { try CustomerTokenKey(id: "private-key-id", secret: "short") }
        await server.stop()
    }
}
