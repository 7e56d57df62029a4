import Clearance
import ClearanceBloomreach
import ClearanceChannels
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceSigning
import Foundation
import HTTPTypes
import Testing

/// Every value that holds a secret, printed every way Swift can print it: `description`,
/// `debugDescription`, string interpolation, `String(reflecting:)` and `dump()`. No secret may
/// show (each secret below contains "LEAK").
@Suite struct SecretDumpTests {
    static func texts(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
            + [(value as? any CustomDebugStringConvertible)?.debugDescription].compactMap { $0 }
    }

    @Test func noSecretInAnyTextForm() async throws {
        let token = OAuth2Token(accessToken: "at-LEAK", refreshToken: "rt-LEAK", expiresAt: Date(), scopes: ["read"], obtainedAt: Date())
        let configuration = OAuth2SessionConfiguration(
            tokenEndpoint: URL(string: "https://auth.example.com/token?tenant=LEAK")!, clientID: "client", clientSecret: "cs-LEAK",
            store: InMemorySessionStore(StoredSession(token: token, client: OAuth2Client(id: "c", secret: "cs2-LEAK"))))
        let session = OAuth2Session(configuration: configuration)
        _ = await session.restore()
        let openID = try OpenIDProvider(issuer: URL(string: "https://id.example.com")!)
        let values: [(String, Any)] = [
            ("Credential.bearer", Credential.bearer("bearer-LEAK")),
            ("Credential.query", Credential.queryParameter(name: "k", value: "query-LEAK")),
            ("Credential.basic", try Credential.basic(user: "u", password: "pw-LEAK")),
            ("Credential.headers", Credential.headers([HTTPField(name: HTTPField.Name("X-Key")!, value: "hdr-LEAK")])),
            ("OAuth2Token", token),
            ("TokenResponse", TokenResponse(accessToken: "at2-LEAK", refreshToken: "rt2-LEAK", idToken: "idt-LEAK")),
            ("SessionIdentity", SessionIdentity(idToken: "idt2-LEAK", claims: ["sub": .string("jane")])),
            ("StoredSession with identity", StoredSession(token: token, identity: SessionIdentity(idToken: "idt3-LEAK", claims: [:]))),
            ("StoredSession", StoredSession(token: token, client: OAuth2Client(id: "c", secret: "cs3-LEAK"))),
            ("OAuth2Client", OAuth2Client(id: "c", secret: "cs4-LEAK")),
            ("IDTokenVerifier", openID.verifier(clientID: "c", hs256ClientSecret: "hs256-secret-LEAK-0123456789abcdef")),
            ("IDTokenVerifier.Configuration", IDTokenVerifier.Configuration(clientID: "c", hs256ClientSecret: "hs256-secret2-LEAK-0123456789abcdef")),
            ("OAuth2SessionConfiguration with an ID token verifier", OAuth2SessionConfiguration(
                tokenEndpoint: URL(string: "https://id.example.com/token")!, clientID: "c", clientSecret: "cs5-LEAK",
                identityVerifier: openID.verifier(clientID: "c", hs256ClientSecret: "hs256-secret3-LEAK-0123456789abcdef"))),
            ("AuthenticationRequestContext", AuthenticationRequestContext(nonce: "nonce-LEAK", maxAge: .seconds(60))),
            ("OAuth2SessionConfiguration", configuration),
            ("OAuth2Session", session),
            ("OAuth2SessionState", session.state),
            ("PasswordGrant", PasswordGrant(username: "jane", password: "pw2-LEAK")),
            ("RefreshTokenGrant", RefreshTokenGrant(refreshToken: "rt3-LEAK")),
            ("AuthorizationCodeGrant", AuthorizationCodeGrant(code: "code-LEAK", redirectURI: URL(string: "http://127.0.0.1/cb")!, codeVerifier: "verifier-LEAK")),
            ("ExtensionGrant", ExtensionGrant.podioApp(appID: "app", appToken: "apptoken-LEAK")),
            ("ChannelAuthorization", ChannelAuthorization(auth: "key:sig-LEAK", channelData: #"{"user_id":"LEAK"}"#, sharedSecret: "shared-LEAK")),
            ("UserAuthentication", UserAuthentication(auth: "key:usersig-LEAK", userData: #"{"id":"LEAK"}"#)),
            // A malformed auth (no colon, as a broken endpoint may answer) may be the signature itself.
            ("ChannelAuthorization, no colon", ChannelAuthorization(auth: "sig-without-key-LEAK", channelData: nil, sharedSecret: nil)),
            ("UserAuthentication, no colon", UserAuthentication(auth: "usersig-without-key-LEAK", userData: "{}")),
            ("ChannelAuthSigner", try ChannelAuthSigner(key: "key", secret: "app-secret-LEAK-0123456789abcdef")),
            ("InlineSecretChannelAuthorizer", try InlineSecretChannelAuthorizer(key: "key", secret: "app-secret2-LEAK-0123456789abcdef")),
            ("ServerChannelAuthorizer", try ServerChannelAuthorizer(
                endpoint: URL(string: "https://example.com/auth?sig=LEAK")!, parameters: [("session", "param-LEAK")],
                headers: [.authorization: "Bearer hdr2-LEAK"], credentialSource: StaticCredentialSource(.bearer("src-LEAK")))),
            ("ServerUserAuthenticator", try ServerUserAuthenticator(endpoint: URL(string: "https://example.com/user-auth")!, headers: [.authorization: "Bearer hdr3-LEAK"])),
            ("StoredCustomerToken", StoredCustomerToken(customerIDs: ["registered": "jane"], token: "customer-LEAK", expiresAt: nil, receivedAt: Date())),
            ("ContentCredentials", ContentCredentials(userID: "u", password: "edition-LEAK", headers: [HTTPField.Name("X-Token")!: "x-LEAK"])),
            ("StoredEntitlements", StoredEntitlements(token: "pugpig-LEAK", globalAuthPassword: "global-LEAK")),
            ("AuthorizationError", AuthorizationError.networkFailure(underlying: RedactedError.masking(["net-LEAK"], in: URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "net-LEAK"])))),
        ]
        for (name, value) in values {
            for text in Self.texts(value) {
                #expect(!text.contains("LEAK"), "\(name): \(text)")
            }
        }
    }
}
