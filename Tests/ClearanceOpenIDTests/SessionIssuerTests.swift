import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

/// Issue 30, with OpenID Connect: a stored session of another issuer is refused before anything
/// is sent; restoring a session never changes what other sessions sharing its provider see; a
/// restored verifier without the HS256 secret says why it refuses.
@Suite("OpenID session issuers")
struct SessionIssuerTests {
    @Test func aStoreOfAnotherIssuerIsRefusedAndTheServerSeesNoRequest() async throws {
        try await withStallingServer { server in
            let provider = try OpenIDProvider(issuer: server.url("/ok/head"))
            let store = InMemorySessionStore()
            let configuration = OAuth2SessionConfiguration(
                tokenEndpoint: server.url("/head/token"), clientID: "client", store: store,
                identityVerifier: provider.verifier(clientID: "client"), notificationCenter: nil)
            let stored = StoredSession(
                token: OAuth2Token(accessToken: "another issuer's access token", refreshToken: "another issuer's refresh token", obtainedAt: Date()),
                identity: SessionIdentity(idToken: "an id token", claims: ["iss": .string("https://staging.example.com"), "sub": .string("alice")]),
                provenance: SessionProvenance(
                    tokenEndpointOrigin: SessionProvenance.origin(of: server.url("/head/token")), clientID: "client", issuer: "https://staging.example.com"))
            try await store.save(stored)

            let session = OAuth2Session(configuration: configuration)
            guard case .failed(.storedSessionMismatch(let member, let recorded, let configured)) = await session.restore() else {
                Issue.record("expected the stored session to be refused")
                return
            }
            #expect(member == .issuer && recorded == "https://staging.example.com" && configured == provider.issuerIdentifier)
            await #expect(throws: AuthorizationError.self) { _ = try await session.credential() }
            await #expect(throws: OAuth2Error.self) { try await session.refresh() }
            await #expect(throws: OpenIDError.self) { _ = try await session.userInfo(from: provider) }
            #expect(server.requests.isEmpty, "\(server.requests)")
            #expect(store.current == stored)
        }
    }

    /// One process, two users, one provider: the second user's store (forged, newer documents
    /// naming another UserInfo endpoint) changes nothing the first user's session sees.
    @Test func restoringASessionNeverChangesWhatOtherSessionsOfTheProviderSee() async throws {
        let issuer = "https://id.example.com"
        let shared = try OpenIDProvider(issuer: URL(string: issuer)!)
        shared.restore(Self.providerState(issuer: issuer, userInfo: "\(issuer)/userinfo", fetchedAt: Date().addingTimeInterval(-60)))
        let before = shared.cachedMetadata

        let store = InMemorySessionStore()
        let configuration = OAuth2SessionConfiguration(
            tokenEndpoint: URL(string: "\(issuer)/token")!, clientID: "client", store: store,
            identityVerifier: shared.verifier(clientID: "client"), notificationCenter: nil)
        let forged = Self.providerState(issuer: issuer, userInfo: "https://attacker.example/userinfo", fetchedAt: Date())
        try await store.save(StoredSession(
            token: OAuth2Token(accessToken: "access", refreshToken: "refresh", expiresAt: Date().addingTimeInterval(3_600), obtainedAt: Date()),
            identity: SessionIdentity(idToken: "an id token", claims: ["iss": .string(issuer), "sub": .string("bob")], provider: forged),
            provenance: SessionProvenance(configuration)))
        let session = OAuth2Session(configuration: configuration)
        #expect(await session.restore().isAuthenticated)

        #expect(shared.cachedMetadata == before)
        #expect(shared.cachedMetadata?.userInfoEndpoint?.absoluteString == "\(issuer)/userinfo")
        #expect(shared.storedState["metadata"]?["userinfo_endpoint"]?.stringValue == "\(issuer)/userinfo")
    }

    @Test func aRestoredVerifierWithoutTheHS256SecretSaysWhy() async throws {
        let issuer = "https://id.example.com"
        var state = Self.providerState(issuer: issuer, userInfo: "\(issuer)/userinfo", fetchedAt: Date(), algorithms: ["RS256", "HS256"]).objectValue!
        state["verifier"] = .object(["hs256_client_secret": .bool(true), "leeway_seconds": .number("60")])
        let stored = StoredSession(
            token: OAuth2Token(accessToken: "access", obtainedAt: Date()),
            client: OAuth2Client(id: "client"),
            identity: SessionIdentity(idToken: "an id token", claims: ["iss": .string(issuer), "sub": .string("alice")], provider: .object(state)))
        let verifier = try #require(try IDTokenVerifier(restoring: stored))
        func encode(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let token = encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(#"{"sub":"alice"}"#) + ".c2lnbmF0dXJl"
        do {
            _ = try await verifier.verify(token)
            Issue.record("an HS256 token was accepted without the secret")
        } catch {
            #expect(error.code == .hs256SecretMissing)
            #expect(error.message.contains("this ID token is signed with HS256 and the client secret was not given"))
        }
    }

    /// What `OpenIDProvider.storedState` holds for `issuer`: a discovery document naming `userInfo`.
    static func providerState(issuer: String, userInfo: String, fetchedAt: Date, algorithms: [String] = ["RS256"]) -> JSONValue {
        .object([
            "issuer": .string(issuer),
            "metadata": .object([
                "issuer": .string(issuer),
                "authorization_endpoint": .string("\(issuer)/authorize"),
                "token_endpoint": .string("\(issuer)/token"),
                "userinfo_endpoint": .string(userInfo),
                "jwks_uri": .string("\(issuer)/jwks"),
                "response_types_supported": .array([.string("code")]),
                "subject_types_supported": .array([.string("public")]),
                "id_token_signing_alg_values_supported": .array(algorithms.map { .string($0) }),
            ]),
            "metadata_fetched_at": .number(String(fetchedAt.timeIntervalSince1970)),
        ])
    }
}
