import Clearance
import ClearanceHTTP
import ClearanceTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("OpenAPI AuthorizationMiddleware")
struct AuthorizationMiddlewareTests {
    final class Next: Sendable {
        let seen = Locked<[(HTTPRequest, String)]>([])
        let accept: String
        init(accept: String) { self.accept = accept }
        var count: Int { seen.withLock { $0.count } }
        func callAsFunction(_ request: HTTPRequest, _ body: HTTPBody?, _ url: URL) async throws -> (HTTPResponse, HTTPBody?) {
            let text = body == nil ? "" : try await String(collecting: body!, upTo: 1 << 20)
            seen.withLock { $0.append((request, text)) }
            if request.headerFields[.authorization] == accept { return (HTTPResponse(status: .ok), HTTPBody("fine")) }
            return (HTTPResponse(status: .unauthorized, headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#]), nil)
        }
    }

    @Test func appliesThePolicyRefreshesOnceAndReplaysTheBody() async throws {
        var policy = AuthorizationPolicy()
        try policy.require(.source("customer"), for: "POST /api/v2/inbox/{id}", host: "api.example.com")
        let fetches = Counter()
        let source = CachingCredentialSource(ClosureCredentialSource { fetches.increment(); return .bearer("fresh") }, initial: .bearer("stale"))
        let middleware = AuthorizationMiddleware(authorizer: try RequestAuthorizer(policy: policy, sources: ["customer": source]))
        let next = Next(accept: "Bearer fresh")
        // A single-pass body, as generated clients stream them.
        let body = HTTPBody(AsyncStream { continuation in continuation.yield(ArraySlice("payload".utf8)); continuation.finish() }, length: .unknown, iterationBehavior: .single)
        let (response, _) = try await middleware.intercept(
            HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/inbox/42"), body: body,
            baseURL: URL(string: "https://api.example.com/api/v2")!, operationID: "fetchInbox", next: next.callAsFunction)
        #expect(response.status == .ok)
        #expect(next.count == 2 && fetches.value == 1)
        let seen = next.seen.withLock { $0 }
        #expect(seen.map(\.1) == ["payload", "payload"])
        #expect(seen.map { $0.0.path } == ["/inbox/42", "/inbox/42"])
        #expect(seen.map { $0.0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh"])
    }

    @Test func unmatchedOperationsGoWithoutCredential() async throws {
        var policy = AuthorizationPolicy()
        try policy.require(.source("customer"), for: "POST /api/v2/inbox/{id}")
        let middleware = AuthorizationMiddleware(authorizer: try RequestAuthorizer(policy: policy, sources: ["customer": StaticCredentialSource(.bearer("x-token"))]))
        let next = Next(accept: "none")
        _ = try? await middleware.intercept(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/health"), body: nil,
                                            baseURL: URL(string: "https://api.example.com/api/v2")!, operationID: "health", next: next.callAsFunction)
        #expect(next.seen.withLock { $0.first?.0.headerFields[.authorization] } == .some(nil))
    }

    @Test func refusesPlainHTTPAndReportsUnauthorized() async throws {
        let middleware = AuthorizationMiddleware(authorizer: try RequestAuthorizer(policy: .always("k"), sources: ["k": StaticCredentialSource(.apiKey("key-123"))]))
        let next = Next(accept: "nothing")
        let insecure = await #expect(throws: AuthorizationError.self) {
            try await middleware.intercept(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"), body: nil,
                                           baseURL: URL(string: "http://api.example.com")!, operationID: "x", next: next.callAsFunction)
        }
        #expect(insecure?.code == .misconfigured)
        #expect(next.count == 0)
        let refused = await #expect(throws: AuthorizationError.self) {
            try await middleware.intercept(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"), body: nil,
                                           baseURL: URL(string: "https://api.example.com")!, operationID: "x", next: next.callAsFunction)
        }
        #expect(refused?.code == .unauthorized)
        #expect(next.count == 1)
    }
}
