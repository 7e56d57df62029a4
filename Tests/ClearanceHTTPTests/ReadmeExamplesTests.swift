import Clearance
import ClearanceBloomreach
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import Foundation
import HTTPTypes
import Logging
import Testing

// Stand-ins for the app-side names the README's snippets use.
private struct Backend: Sendable {
    let api: DemoAPI
    func customerJWT() async throws -> String? {
        try await api.mintCustomerToken(customerIDs: ["registered": "jane@example.com"], expiresAt: Date().addingTimeInterval(600))
    }
}
private enum LegacyKeychain { static func token() -> String? { "legacy-token" } }

/// The tour of `Clearance`'s landing page (and the README's per-endpoint example's neighbours),
/// compiled and run: each marked region is one of its Swift blocks (`DocumentationTests`).
@Suite("README examples")
struct ReadmeExamplesTests {
    @Test func credentials() throws {
        // snippet: begin
        let key = Credential.apiKey("public-api-key")              // Authorization: Token public-api-key
        let jwt = Credential.bearer("eyJhbGciOi…")                 // Authorization: Bearer eyJhbGciOi…
        let podio = Credential.accessToken("abc", scheme: "OAuth2") // Authorization: OAuth2 abc
        let basic = try Credential.basic(user: "reader", password: "s3cret") // RFC 7617, UTF-8
        print(jwt)                                                 // Credential(bearer, <redacted>)
        // snippet: end
        #expect(key.authorizationValue == "Token public-api-key")
        #expect(podio.authorizationValue == "OAuth2 abc")
        #expect(basic.authorizationValue == "Basic cmVhZGVyOnMzY3JldA==")
        #expect(jwt.description == "Credential(bearer, <redacted>)")
    }

    @Test func tour() async throws {
        let demo = await DemoAPI(apiKey: "public-api-key")
        let server = try await RunningServer.start(demo.router(), logger: .init(label: "readme", factory: { _ in SwiftLogNoOpLogHandler() }))
        let backend = Backend(api: demo)
        let api = server.baseURL
        let key = Credential.apiKey("public-api-key")

        // snippet: begin
        // The app's own provider. nil or "" is a missingCredential error: never an unauthenticated request.
        let customerToken = CachingCredentialSource(
            ClosureCredentialSource.bearerToken { try await backend.customerJWT() },
            name: "customer-token",
            leeway: 30)                       // renewed 30 s before it expires; one fetch however many wait
        // A synchronous provider that may block runs off Swift's cooperative thread pool.
        let legacy = ClosureCredentialSource.blocking { LegacyKeychain.token().map { .bearer($0) } }
        // snippet: end
        #expect(try await legacy.credential() == .bearer("legacy-token"))

        let customerTokens = CustomerTokenSource(customer: ["registered": "jane@example.com"], notificationCenter: nil) { _ in
            try await backend.customerJWT()
        }
        // snippet: begin
        // Bloomreach's customer token comes from a CustomerTokenSource (see "Customer tokens" below).
        let authorizer = try Bloomreach.authorizer(.advanced(apiKey: "public-api-key", customerTokens: customerTokens))
        // or by hand:
        var policy = AuthorizationPolicy()
        try policy.require(.source("customer"), for: "POST /webxp/projects/{projectToken}/appinbox/fetch")
        try policy.require(.firstAvailable(["customer", "api-key"]), for: "/webxp/**")
        let custom = try RequestAuthorizer(policy: policy, sources: ["customer": customerToken, "api-key": StaticCredentialSource(key)])
        // snippet: end
        #expect(custom.policy.rules.count == 2)

        // snippet: begin
        let client = AuthorizedClient(authorizer: authorizer) { request, _ in
            request.headerFields[.userAgent] = "MyApp/1.0"     // the app may adjust any outgoing request
        }
        do throws(AuthorizationError) {
            let (response, body) = try await client.send(.post, api.appending(path: "/webxp/projects/p1/appinbox/fetch"), body: Data("{}".utf8))
            print(response.status, body.count)
        } catch {
            print(error.qualifiedCode, error.message)          // e.g. clearance.missingCredential …
        }
        // snippet: end
        let (again, _) = try await client.send(.post, api.appending(path: "/webxp/projects/p1/appinbox/fetch"), body: Data("{}".utf8))
        #expect(again.status == .ok)

        // snippet: begin
        let middleware = AuthorizationMiddleware(authorizer: authorizer)
        // Client(serverURL: …, transport: …, middlewares: [middleware])
        // snippet: end
        #expect(middleware.maximumBufferedBody > 0)

        let upstream = ClosureCredentialSource { .bearer("from-upstream") }
        // snippet: begin
        let events = AuthorizationEvents()   // posts AuthorizationEvents.notificationName too
        let cached = CachingCredentialSource(upstream, events: events)
        let stream = events.events           // made before the work it should see
        _ = try await cached.credential()
        let first = await stream.first { _ in true }
        if let first { print(first) }        // refreshed(…); later invalidated(…), failed(…, code)
        // snippet: end
        #expect(first?.description == "refreshed(cached)")
        await server.stop()
    }
}
