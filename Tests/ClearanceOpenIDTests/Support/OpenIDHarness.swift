import Clearance
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// A session signing in at the ``HostileOpenIDProvider``: the provider, a loopback redirect
/// listener, the browser that follows the authorization URL, the store and the logs.
struct OpenIDHarness {
    let provider: HostileOpenIDProvider
    let openID: OpenIDProvider
    let session: OAuth2Session
    let store: InMemorySessionStore
    let logs: LogCapture
    let listener: LoopbackRedirectListener

    /// Discovers the running `provider` and makes the session, with `listener` as the redirect
    /// receiver. The caller owns (and stops) the provider and the listener.
    static func make(
        provider: HostileOpenIDProvider, listener: LoopbackRedirectListener, logs: LogCapture, clock: ManualClock? = nil,
        store: InMemorySessionStore = InMemorySessionStore(), allowsHS256: Bool = false, clientSecret: String? = nil
    ) async throws -> OpenIDHarness {
        let sessionClock: any OAuth2Clock = clock ?? SystemOAuth2Clock()
        let openID = try await OpenIDProvider.discover(issuer: provider.issuer, clock: sessionClock, logger: logs.logger("clearance.openid"))
        let authentication: ClientAuthenticationMethod? = clientSecret == nil ? nil : .clientSecretPost
        let configuration = try await openID.sessionConfiguration(
            clientID: provider.clientID, clientSecret: clientSecret, clientAuthentication: authentication,
            allowsHS256: allowsHS256, store: store, notificationCenter: nil, logger: logs.logger("clearance.oauth2"))
        return OpenIDHarness(provider: provider, openID: openID, session: OAuth2Session(configuration: configuration), store: store, logs: logs, listener: listener)
    }

    /// The sign-in flow: the browser follows the authorization URL to the listener.
    func flow(prompt: String? = nil, maxAge: Duration? = nil, loginHint: String? = nil) -> OpenIDAuthorizationCodeFlow {
        OpenIDAuthorizationCodeFlow(receiver: listener, prompt: prompt, maxAge: maxAge, loginHint: loginHint, timeout: .seconds(20)) { url in
            try await Browser.follow(url)
        }
    }

    /// Signs in; the error is the session's.
    @discardableResult
    func signIn(prompt: String? = nil, maxAge: Duration? = nil, loginHint: String? = nil) async throws(OAuth2Error) -> TokenInfo {
        try await session.signIn(with: flow(prompt: prompt, maxAge: maxAge, loginHint: loginHint))
    }

    /// Signs in, expecting the refusal `code`: the OpenID error, nothing stored (the store and the
    /// session as they were: signed out, or the earlier session kept), the refresh token it got
    /// revoked, and no token in the logs or the message. Returns the code observed.
    @discardableResult
    func expectRefusedSignIn(_ code: OpenIDError.Code, maxAge: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> OpenIDError.Code? {
        var observed: OpenIDError.Code?
        let (storedBefore, identityBefore, liveBefore) = (store.current, session.identity, provider.counters.liveRefreshTokens)
        do {
            try await signIn(maxAge: maxAge)
            Issue.record("the sign-in was accepted; expected openid.\(code.rawValue)", sourceLocation: sourceLocation)
        } catch {
            let refusal = error.identityError as? OpenIDError
            observed = refusal?.code
            #expect(refusal?.code == code, "got \(error)", sourceLocation: sourceLocation)
            #expect(error.code == (refusal?.isRefusal == false ? .identityUnavailable : .identityRefused), sourceLocation: sourceLocation)
            expectNoTokenIn("\(error) \(error.message) \(String(reflecting: error))", sourceLocation: sourceLocation)
        }
        #expect(store.current == storedBefore, "a refused sign-in stored a session", sourceLocation: sourceLocation)
        #expect(session.identity == identityBefore && session.isAuthenticated == (identityBefore != nil), sourceLocation: sourceLocation)
        #expect(provider.counters.liveRefreshTokens == liveBefore, "the refused sign-in's refresh token was left valid", sourceLocation: sourceLocation)
        expectNoTokenIn(logs.text, sourceLocation: sourceLocation)
        return observed
    }

    /// No token the provider issued appears in `text`.
    func expectNoTokenIn(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for token in provider.counters.issued {
            #expect(!text.contains(token), "a token leaked", sourceLocation: sourceLocation)
            // Nor any of a JWT's parts (its signature alone is enough to replay nothing, but a
            // payload is the user's data).
            for part in token.split(separator: ".") where part.count > 16 {
                #expect(!text.contains(part), "a part of a token leaked", sourceLocation: sourceLocation)
            }
        }
    }
}

/// Runs `body` with a harness: the provider, then the listener, each stopped afterwards
/// whatever happens (a failure while starting the next one included).
func withHarness(
    _ behaviour: HostileOpenIDProvider.Behaviour = .init(), clock: ManualClock? = nil, store: InMemorySessionStore = InMemorySessionStore(),
    allowsHS256: Bool = false, clientSecret: String? = nil, _ body: (OpenIDHarness) async throws -> Void
) async throws {
    let now: @Sendable () -> Date = if let clock { { clock.now } } else { { Date() } }
    let provider = try await HostileOpenIDProvider.start(behaviour, clock: now)
    try await withCleanup {
        let logs = LogCapture()
        let listener = try await LoopbackRedirectListener.start(logger: logs.logger("clearance.loopback"))
        try await withCleanup {
            let harness = try await OpenIDHarness.make(
                provider: provider, listener: listener, logs: logs, clock: clock, store: store, allowsHS256: allowsHS256, clientSecret: clientSecret)
            try await body(harness)
        } cleanup: {
            await listener.stop()
        }
    } cleanup: {
        await provider.stop()
    }
}

/// A behaviour built by `change`.
func behaviour(_ change: (inout HostileOpenIDProvider.Behaviour) -> Void) -> HostileOpenIDProvider.Behaviour {
    var behaviour = HostileOpenIDProvider.Behaviour()
    change(&behaviour)
    return behaviour
}
