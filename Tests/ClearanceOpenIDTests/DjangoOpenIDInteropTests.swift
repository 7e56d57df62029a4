import Clearance
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

/// OpenID Connect against a real provider: django-oauth-toolkit 3.4.1 with OIDC enabled (RS256
/// with `OIDC_RSA_PRIVATE_KEY`, an application that skips consent, RP-initiated logout), the
/// authorization code flow driven as a browser would (`browser.py` logs alice in, the redirect
/// lands on the loopback listener). A missing interpreter or Django fails, never skips.
///
/// Serialized: Django's RP-initiated logout deletes every token of the user (alice), so a
/// sign-out must not run while another test uses her tokens.
@Suite("Django OAuth Toolkit OpenID Connect interop", .serialized, DjangoOAuthServer.trait(.init(oidc: true)))
struct DjangoOpenIDInteropTests {
    static let keySetPath = "/o/.well-known/jwks.json"

    @Test func discovery() async throws {
        let django = try DjangoOAuthServer.require()
        let openID = try #require(django.openID)
        let provider = try await OpenIDProvider.discover(issuer: openID.issuer)
        let metadata = try #require(provider.cachedMetadata)
        #expect(metadata.issuer == django.url + "/o")
        #expect(metadata.authorizationEndpoint.absoluteString == django.url + "/o/authorize/")
        #expect(metadata.tokenEndpoint.absoluteString == django.url + "/o/token/")
        #expect(metadata.jwksURI.absoluteString == django.url + Self.keySetPath)
        #expect(metadata.userInfoEndpoint?.absoluteString == django.url + "/o/userinfo/")
        #expect(metadata.endSessionEndpoint?.absoluteString == django.url + "/o/logout/")
        #expect(metadata.revocationEndpoint == nil, "DOT's discovery document lists no revocation_endpoint")
        #expect(metadata.idTokenSigningAlgorithms.contains("RS256"))
        // The issuer must be exactly the one asked for: with a trailing slash it is another.
        do throws(OpenIDError) {
            _ = try await OpenIDProvider.discover(issuer: URL(string: openID.issuer.absoluteString + "/")!)
            Issue.record("the issuer with a trailing slash was accepted")
        } catch {
            #expect(error.code == .discoveryIssuerMismatch, "\(error)")
        }
    }

    @Test func signInWithTheVerifiedSubjectThenUserInfo() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let (session, provider) = try await Self.session(django, store: store)
        try await Self.signIn(session, django)
        let identity = try #require(session.identity)
        #expect(identity.subject == django.aliceSubject)
        #expect(identity.issuer == django.url + "/o")
        #expect(identity.email == "alice@example.com")
        #expect(identity.claims["aud"] == .string(django.clients["openid"]?.id ?? "?") || identity.claims["aud"]?.arrayValue?.contains(.string(django.clients["openid"]?.id ?? "?")) == true)
        #expect(store.current?.identity == identity)
        let token = try #require(store.current?.token)
        let introspection = try await django.introspect(token.accessToken)
        #expect(introspection.active && introspection.username == "alice")

        let userInfo = try await session.userInfo(from: provider)
        #expect(userInfo.subject == django.aliceSubject)
        #expect(userInfo.email == "alice@example.com")
        #expect(userInfo.name == "Alice Interop")
    }

    @Test func refreshBringsANewIDTokenForTheSameSubject() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let (session, _) = try await Self.session(django, store: store)
        try await Self.signIn(session, django)
        let first = try #require(session.identity)
        try await session.refresh()
        let second = try #require(session.identity)
        #expect(second.idToken != first.idToken, "DOT issues a new ID token at refresh")
        #expect(second.subject == first.subject && second.issuer == first.issuer)
        #expect((second.issuedAt ?? .distantPast) >= (first.issuedAt ?? .distantFuture))
        #expect(store.current?.identity?.idToken == second.idToken)
    }

    @Test func signOutRevokesAndTheProviderAcceptsTheEndSessionURL() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let (session, provider) = try await Self.session(django, store: store)
        try await Self.signIn(session, django)
        let accessToken = try #require(store.current?.token.accessToken)
        let signOut = await session.signOut(at: provider, postLogoutRedirectURI: URL(string: "http://127.0.0.1/signed-out")!, state: "interop-state")
        guard case .revoked = signOut.revocation else {
            Issue.record("expected DOT to revoke, got \(signOut.revocation)")
            return
        }
        #expect(try await django.introspect(accessToken).active == false)
        #expect(store.current == nil && !session.isAuthenticated)
        let url = try #require(signOut.endSession?.url)
        let output = try await django.browser(["logout", url.absoluteString, "--username", "alice", "--password=\(django.password)"])
        let lines = output.split(separator: "\n")
        #expect(lines.first == "http://127.0.0.1/signed-out?state=interop-state", "\(output)")
        #expect(lines.last == "django session: ended", "\(output)")
    }

    @Test("key rotation: the old key moved to OIDC_RSA_PRIVATE_KEYS_INACTIVE, a new one active: accepted after one key set refetch")
    func keyRotation() async throws {
        var django = try await DjangoOAuthServer.start(.init(oidc: true))
        try await withCleanup {
            let transport = CountingTransport()
            let store = InMemorySessionStore()
            let (session, _) = try await Self.session(django, store: store, transport: transport)
            try await Self.signIn(session, django)
            let oldKey = try #require(django.openID?.activeKeyID)
            #expect(try Self.keyID(of: session.identity) == oldKey)
            #expect(transport.count(Self.keySetPath) == 1)

            // Django restarted (SIGTERM) with the new settings: same port, database and tokens.
            django = try await django.restart(rotatingOIDCKey: true)
            let newKey = try #require(django.openID?.activeKeyID)
            #expect(newKey != oldKey && django.openID?.inactiveKeyIDs == [oldKey])

            try await session.refresh()
            #expect(try Self.keyID(of: session.identity) == newKey)
            #expect(session.identity?.subject == django.aliceSubject)
            #expect(transport.count(Self.keySetPath) == 2, "one refetch for the new kid")

            // A new sign-in signed with the new key needs no further fetch.
            try await Self.signIn(session, django)
            #expect(transport.count(Self.keySetPath) == 2)
        } cleanup: {
            await django.stop()
        }
    }

    // MARK: - Helpers

    /// A session for the seeded `clearance-openid` application, with DOT's revocation endpoint
    /// (its discovery document lists none).
    static func session(
        _ django: DjangoOAuthServer, store: InMemorySessionStore, transport: CountingTransport = CountingTransport()
    ) async throws -> (OAuth2Session, OpenIDProvider) {
        let issuer = try #require(django.openID?.issuer)
        let provider = try await OpenIDProvider.discover(issuer: issuer, transport: transport)
        var configuration = try await provider.sessionConfiguration(
            clientID: django.clients["openid"]?.id ?? "missing", scopes: ["email", "profile"], store: store, notificationCenter: nil)
        configuration.endpoints.revocation = URL(string: django.url + "/o/revoke_token/")
        return (OAuth2Session(configuration: configuration), provider)
    }

    /// Signs alice in: `browser.py` logs her in on Django and follows the redirect to the listener.
    static func signIn(_ session: OAuth2Session, _ django: DjangoOAuthServer) async throws {
        let listener = try await LoopbackRedirectListener.start()
        _ = try await withCleanup {
            try await session.signIn(with: OpenIDAuthorizationCodeFlow(receiver: listener, timeout: .seconds(30)) { url in
                try await django.browser(["authorize", url.absoluteString, "--username", "alice", "--password=\(django.password)"])
            })
        } cleanup: {
            await listener.stop()
        }
    }

    /// The `kid` of the identity's ID token.
    static func keyID(of identity: SessionIdentity?) throws -> String? {
        let token = try #require(identity?.idToken)
        let header = try #require(token.split(separator: ".").first.flatMap { Base64URL.decode($0) })
        return JSONValue(parsing: String(decoding: header, as: UTF8.self))?["kid"]?.stringValue
    }
}
