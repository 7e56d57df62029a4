import Clearance
import ClearanceOAuth2
import Foundation
import Logging

extension OpenIDProvider {
    /// A session configuration for signing in at this provider: the token, authorization and
    /// (when the discovery document lists one) revocation endpoints from its discovery document,
    /// `openid` among the scopes, the provider's transport, transport rules and clock, and an
    /// ``IDTokenVerifier`` for `clientID` as its identity verifier.
    ///
    /// Change what the app needs on the result (`automaticSignIn`, `leeway`, the endpoints,
    /// …) before making the `OAuth2Session`.
    ///
    /// Sign in with ``OpenIDAuthorizationCodeFlow``: a sign-in with the authorization code grant
    /// needs its ID token and the nonce the flow sent (a plain `AuthorizationCodeFlow` is refused
    /// with ``OpenIDError/authenticationRequestMissing``). Another grant, as an explicit or
    /// `automaticSignIn` (client credentials, an app, password or device grant), sends no
    /// authentication request: its ID token, when the answer has one, is verified and must carry
    /// no nonce; without one the session signs in with no `OAuth2Session.identity` (a client
    /// signed in as itself has no user).
    ///
    /// - Parameters:
    ///   - clientID: The client id registered at the provider.
    ///   - clientSecret: The client secret, for confidential clients.
    ///   - clientAuthentication: How the secret is sent; HTTP Basic when there is one, by default.
    ///   - scopes: The scopes to ask for (`openid` is added).
    ///   - allowsHS256: Whether the client was registered for HS256-signed ID tokens (its client
    ///     secret is then the key). False by default: HS256 ID tokens are refused.
    ///   - idTokenLeeway: The clock skew allowed on the ID token's times.
    ///   - store: Where the session (tokens and the verified identity) is kept.
    ///   - storesClientConfiguration: Whether the store also keeps the endpoints and the client,
    ///     so a relaunched process can restore the session without configuring it again.
    ///   - name: The session's name in errors, events and logs.
    ///   - notificationCenter: Where state changes are posted; nil posts none.
    ///   - logger: Where the session logs (never a token or secret).
    /// - Throws: The discovery errors of ``metadata()``.
    public func sessionConfiguration(
        clientID: String,
        clientSecret: String? = nil,
        clientAuthentication: ClientAuthenticationMethod? = nil,
        scopes: [String] = [],
        allowsHS256: Bool = false,
        idTokenLeeway: Duration = .seconds(60),
        store: any SessionStore = InMemorySessionStore(),
        storesClientConfiguration: Bool = false,
        name: String = "openid",
        notificationCenter: NotificationCenter? = .default,
        logger: Logger = Logger(label: "clearance.oauth2")
    ) async throws(OpenIDError) -> OAuth2SessionConfiguration {
        let metadata = try await metadata()
        return OAuth2SessionConfiguration(
            tokenEndpoint: metadata.tokenEndpoint, clientID: clientID, clientSecret: clientSecret,
            clientAuthentication: clientAuthentication, revocationEndpoint: metadata.revocationEndpoint,
            authorizationEndpoint: metadata.authorizationEndpoint, scopes: OpenIDAuthorizationCodeFlow.withOpenID(scopes),
            store: store,
            identityVerifier: verifier(clientID: clientID, hs256ClientSecret: allowsHS256 ? clientSecret : nil, leeway: idTokenLeeway),
            transport: transport, transportSecurity: transportSecurity, clock: clock,
            storesClientConfiguration: storesClientConfiguration, name: name, notificationCenter: notificationCenter, logger: logger)
    }
}
