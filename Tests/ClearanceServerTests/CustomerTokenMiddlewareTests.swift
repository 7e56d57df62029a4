import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// `CustomerTokenMiddleware` on a real loopback server: who gets through, and what a refusal says.
@Suite("Customer token middleware", .timeLimit(.minutes(1)))
struct CustomerTokenMiddlewareTests {
    /// A server whose `/inbox` is behind the middleware and answers with the verified customer.
    static func withServer(_ body: (URL, CustomerTokenMinter) async throws -> Void) async throws {
        let key = try CustomerTokenKey(id: "k1", secret: CustomerTokenVerifierTests.secret)
        let verifier = try await CustomerTokenVerifier(keys: [key])
        let router = Router(context: BasicCustomerTokenRequestContext.self)
        router.group().add(middleware: CustomerTokenMiddleware(verifier: verifier, realm: "inbox")).get("/inbox") { _, context in
            context.customerToken?.customerIDs["registered"] ?? "?"
        }
        let server = try await RunningServer.start(router, logger: TestHub.quietLogger)
        do {
            try await body(server.baseURL, await CustomerTokenMinter(key: key))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func get(_ base: URL, authorization: String?) async throws -> (HTTPResponse, String) {
        var request = HTTPRequest(method: .get, url: base.appending(path: "/inbox"))
        if let authorization { request.headerFields[.authorization] = authorization }
        let (response, data) = try await TestHub.http.send(request, body: nil)
        return (response, String(decoding: data, as: UTF8.self))
    }

    @Test func aValidTokenReachesTheRouteWithItsCustomer() async throws {
        try await Self.withServer { base, minter in
            let token = try await minter.mint(customerIDs: ["registered": "jane@example.com"], ttl: 60)
            let (response, body) = try await Self.get(base, authorization: "Bearer \(token)")
            #expect(response.status == .ok && body == "jane@example.com")
            let (lowercase, _) = try await Self.get(base, authorization: "bearer \(token)")
            #expect(lowercase.status == .ok)
        }
    }

    @Test func withoutATokenTheChallengeNamesNoError() async throws {
        try await Self.withServer { base, _ in
            for authorization in [nil, "Token public-api-key", "Bearer", "Bearer   "] {
                let (response, body) = try await Self.get(base, authorization: authorization)
                #expect(response.status == .unauthorized)
                #expect(response.headerFields[.wwwAuthenticate] == #"Bearer realm="inbox""#)
                #expect(body.contains(#""error":"customer_token.missingToken""#), "\(body)")
                #expect(response.headerFields[.cacheControl] == "no-store")
            }
        }
    }

    @Test func aRefusedTokenIsAnswered401InvalidTokenSayingWhyWithoutEchoingIt() async throws {
        try await Self.withServer { base, minter in
            let expired = try await minter.mint(customerIDs: ["registered": "jane@example.com"], expiresAt: Date().addingTimeInterval(-120))
            let unsigned = CustomerTokenVerifierTests.handMade(header: #"{"alg":"none","kid":"k1"}"#, payload: #"{"sub":{"registered":"jane@example.com"}}"#)
            for (token, code) in [(expired, "expired"), (unsigned, "algorithmNone"), ("not-a-jwt", "malformed")] {
                let (response, body) = try await Self.get(base, authorization: "Bearer \(token)")
                #expect(response.status == .unauthorized)
                let challenge = response.headerFields[.wwwAuthenticate] ?? ""
                #expect(challenge.hasPrefix(#"Bearer realm="inbox", error="invalid_token", error_description=""#), "\(challenge)")
                #expect(body.contains(#""error":"customer_token.\#(code)""#), "\(body)")
                for part in token.split(separator: ".") {
                    #expect(!body.contains(part) && !challenge.contains(part), "the refusal echoes the token: \(body)")
                }
            }
        }
    }
}
