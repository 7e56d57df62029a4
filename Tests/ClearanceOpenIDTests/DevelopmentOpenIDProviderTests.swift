import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceServer
import ClearanceTestSupport
import ClearanceWire
import Foundation
import HTTPTypes
import Testing

/// The development provider as an OpenID provider: what `clearance serve` and the demo offer
/// offline, and what it refuses.
@Suite("Development OpenID provider")
struct DevelopmentOpenIDProviderTests {
    struct Running {
        let provider: DevelopmentOAuth2Provider
        let server: RunningServer
        var base: String { server.baseURL.absoluteString }

        static func start() async throws -> Running {
            let provider = try await DevelopmentOAuth2Provider()
            return Running(provider: provider, server: try await RunningServer.start(provider.router()))
        }

        func get(_ path: String) async throws -> (Int, String, String) {
            let (response, body) = try await AsyncHTTPClientHTTPTransport.shared.send(HTTPRequest(method: .get, url: URL(string: base + path)!), body: nil)
            return (response.status.code, response.headerFields[.location] ?? "", String(decoding: body, as: UTF8.self))
        }

        func post(_ path: String, _ form: [(name: String, value: String)], basic: String? = nil) async throws -> (Int, JSONValue?) {
            var request = HTTPRequest(method: .post, url: URL(string: base + path)!)
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            if let basic { request.headerFields[.authorization] = basic }
            let (response, body) = try await AsyncHTTPClientHTTPTransport.shared.send(request, body: Data(FormFields.encode(form).utf8))
            return (response.status.code, JSONValue(parsing: String(decoding: body, as: UTF8.self)))
        }
    }

    @Test func signInRefreshAndSignOutWithTheSessionAndTheKeyMadeAtStart() async throws {
        let running = try await Running.start()
        try await withCleanup {
            let listener = try await LoopbackRedirectListener.start()
            try await withCleanup {
                let openID = try await OpenIDProvider.discover(issuer: running.server.baseURL)
                #expect(openID.cachedMetadata?.idTokenSigningAlgorithms == ["ES256"])
                let session = OAuth2Session(configuration: try await openID.sessionConfiguration(clientID: "demo-native", notificationCenter: nil))
                try await session.signIn(with: OpenIDAuthorizationCodeFlow(receiver: listener, loginHint: "jane@example.com", timeout: .seconds(20)) {
                    try await Browser.follow($0)
                })
                let first = try #require(session.identity)
                #expect(first.subject == "user:jane@example.com" && first.issuer == running.base && first.claims["nonce"] != nil)
                try await session.refresh()
                let second = try #require(session.identity)
                #expect(second.idToken != first.idToken && second.subject == first.subject && second.claims["nonce"] == nil)
                #expect(second.claims["auth_time"] == first.claims["auth_time"])

                // Sign-out: revoked at the provider, and its end-session endpoint accepts the URL.
                let signOut = await session.signOut(at: openID, postLogoutRedirectURI: listener.redirectURI, state: "dev-signed-out")
                guard case .revoked = signOut.revocation else {
                    Issue.record("expected a revocation, got \(signOut.revocation)")
                    return
                }
                #expect(!session.isAuthenticated && session.identity == nil)
                #expect(await running.provider.ledger.liveRefreshTokens == 0)
                let endSession = try #require(signOut.endSession?.url)
                let (status, location, _) = try await running.get(String(endSession.absoluteString.dropFirst(running.base.count)))
                #expect(status == 302 && location.hasPrefix(listener.redirectURI.absoluteString) && location.contains("state=dev-signed-out"))
                #expect(await running.provider.ledger.endSessions == 1)
            } cleanup: {
                await listener.stop()
            }
            // A key made at start: another provider publishes another one.
            let (_, _, keys) = try await running.get("/oauth/jwks")
            let other = try await Running.start()
            try await withCleanup {
                let (_, _, otherKeys) = try await other.get("/oauth/jwks")
                #expect(JSONValue(parsing: keys)?["keys"]?.arrayValue?.first?["kid"] != JSONValue(parsing: otherKeys)?["keys"]?.arrayValue?.first?["kid"])
            } cleanup: {
                await other.server.stop()
            }
        } cleanup: {
            await running.server.stop()
        }
    }

    @Test func theAuthorizationEndpointOnlyRedirectsSafely() async throws {
        let running = try await Running.start()
        try await withCleanup {
            let pkce = PKCE()
            let good = "/oauth/authorize?response_type=code&client_id=demo-native&scope=openid&state=s&code_challenge=\(pkce.challenge)&code_challenge_method=S256"
            // Not a loopback redirect URI, or an unknown client: a page, never a redirect.
            var (status, location, _) = try await running.get(good + "&redirect_uri=https%3A%2F%2Fattacker.example.com%2Fcb")
            #expect(status == 400 && location.isEmpty)
            (status, location, _) = try await running.get(good.replacingOccurrences(of: "demo-native", with: "nobody") + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb")
            #expect(status == 400 && location.isEmpty)
            // No PKCE: an error back to the client.
            (status, location, _) = try await running.get("/oauth/authorize?response_type=code&client_id=demo-native&state=s&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb")
            #expect(status == 302 && location.contains("error=invalid_request") && location.contains("state=s"))

            (status, location, _) = try await running.get(good + "&nonce=n-1&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb")
            #expect(status == 302)
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
            let exchange: [(name: String, value: String)] = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "http://127.0.0.1:9/cb"), ("client_id", "demo-native"),
            ]
            // A wrong verifier burns the code; the right one then finds it gone.
            let (wrong, wrongBody) = try await running.post("/oauth/token", exchange + [("code_verifier", PKCE().verifier)])
            #expect(wrong == 400 && wrongBody?["error"] == .string("invalid_grant"))
            let (again, _) = try await running.post("/oauth/token", exchange + [("code_verifier", pkce.verifier)])
            #expect(again == 400)
            // A public client may not use the password grant.
            let (password, passwordBody) = try await running.post("/oauth/token", [
                ("grant_type", "password"), ("username", "jane@example.com"), ("password", "demo-password"), ("client_id", "demo-native"),
            ])
            #expect(password == 401 && passwordBody?["error"] == .string("invalid_client"))
        } cleanup: {
            await running.server.stop()
        }
    }

    @Test func userInfoNeedsAnOpenIDTokenAndEndSessionAValidHint() async throws {
        let running = try await Running.start()
        try await withCleanup {
            let (_, token) = try await running.post("/oauth/token", [("grant_type", "password"), ("username", "jane@example.com"), ("password", "demo-password")],
                                                    basic: OAuth2Client(id: "demo-client", secret: "demo-client-secret").basicAuthorization)
            let accessToken = try #require(token?["access_token"]?.stringValue)
            var request = HTTPRequest(method: .get, url: URL(string: running.base + "/oauth/userinfo")!)
            request.headerFields[.authorization] = "Bearer \(accessToken)"
            let (response, _) = try await AsyncHTTPClientHTTPTransport.shared.send(request, body: nil)
            #expect(response.status.code == 403, "a token issued without openid")
            let (hint, _, _) = try await running.get("/oauth/logout?id_token_hint=\(accessToken)&client_id=demo-native")
            #expect(hint == 400, "an access token is no ID token")
            let (redirect, location, _) = try await running.get("/oauth/logout?post_logout_redirect_uri=https%3A%2F%2Fattacker.example.com%2F")
            #expect(redirect == 400 && location.isEmpty)
            #expect(await running.provider.ledger.endSessions == 0)
        } cleanup: {
            await running.server.stop()
        }
    }
}
