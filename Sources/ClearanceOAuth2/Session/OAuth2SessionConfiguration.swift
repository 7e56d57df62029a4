import Clearance
import ClearanceHTTP
import Foundation
import Logging

/// Everything an ``OAuth2Session`` needs, with defaults that are safe.
public struct OAuth2SessionConfiguration: Sendable {
    /// The authorization server's endpoints.
    public var endpoints: OAuth2Endpoints
    /// The client's identity and how it authenticates.
    public var client: OAuth2Client
    /// The `Authorization` scheme the access token is sent with: `Bearer` (RFC 6750, the
    /// default) or, for PodioKit-style APIs, `OAuth2`. A token response whose `token_type` is
    /// neither `Bearer` (any case) nor this scheme is refused (RFC 6749 §7.1).
    public var headerScheme: String
    /// The scopes requested when a grant names none.
    public var scopes: [String]
    /// Where the session is kept between launches.
    public var store: any SessionStore
    /// The grant used to sign in by itself when a request needs a token and there is no session
    /// (PodioKit's "authenticate automatically as an app"). `nil`: requests fail with
    /// ``OAuth2Error/notSignedIn`` until the app signs in.
    public var automaticSignIn: (any OAuth2Grant)?
    /// Who checks the identity in every token response before the session uses or stores it:
    /// with OpenID Connect, ClearanceOpenID's `IDTokenVerifier`. `nil`: no identity is kept.
    public var identityVerifier: (any IdentityVerifier)?
    /// How requests reach the authorization server.
    public var transport: any HTTPTransport
    /// Where secrets may be sent: HTTPS, or plain HTTP to loopback, unless loosened.
    public var transportSecurity: TransportSecurity
    /// The clock (inject a manual one in tests).
    public var clock: any OAuth2Clock
    /// How long before expiry the token is refreshed proactively. Default 30 s.
    public var leeway: Duration
    /// The limit on automatic token requests (refreshes and automatic sign-ins). Default 5 in 30 s.
    public var refreshWindow: RefreshWindow
    /// The wait after a failed automatic token request that kept the session. Default 1 s doubling to 30 s.
    public var backoff: RefreshBackoff
    /// Whether the store also keeps the endpoints, client (with its secret) and header scheme, so
    /// that another process can refresh and revoke (the `clearance` command line does). Default false.
    public var storesClientConfiguration: Bool
    /// The name in errors, events and logs.
    public var name: String
    /// Where state changes are posted; `nil` posts none.
    public var notificationCenter: NotificationCenter?
    /// Clearance's generic events (`refreshed`, `invalidated`, `failed`), if the app listens to them.
    public var authorizationEvents: AuthorizationEvents?
    /// Where the session logs (never a secret).
    public var logger: Logger

    /// - Parameters:
    ///   - tokenEndpoint: The token endpoint.
    ///   - clientID: The client id.
    ///   - clientSecret: The client secret, for confidential clients.
    ///   - clientAuthentication: How they are sent; HTTP Basic when there is a secret, by default.
    ///   - revocationEndpoint: The RFC 7009 revocation endpoint, if the server has one.
    ///   - authorizationEndpoint: The authorization endpoint, for the authorization code grant.
    ///   - deviceAuthorizationEndpoint: The RFC 8628 device authorization endpoint, for the device grant.
    ///   - headerScheme: The `Authorization` scheme of the access token (``headerScheme``): `Bearer`, or `OAuth2` for Podio.
    ///   - scopes: The scopes requested when a grant names none.
    ///   - store: Where the session is kept between launches (in memory by default).
    ///   - automaticSignIn: The grant to sign in with by itself when a request needs a token (``automaticSignIn``).
    ///   - identityVerifier: Who checks the identity in every token response (``identityVerifier``).
    ///   - transport: How requests reach the authorization server.
    ///   - transportSecurity: Where secrets may be sent.
    ///   - clock: The clock; inject a manual one in tests.
    ///   - leeway: How long before expiry the token is refreshed proactively.
    ///   - refreshWindow: The limit on automatic token requests.
    ///   - backoff: The wait after a failed automatic token request.
    ///   - storesClientConfiguration: Whether the store also keeps the endpoints and the client (``storesClientConfiguration``).
    ///   - name: The name in errors, events and logs.
    ///   - notificationCenter: Where state changes are posted; nil posts none.
    ///   - authorizationEvents: Clearance's generic events, if the app listens to them.
    ///   - logger: Where the session logs (never a secret).
    public init(
        tokenEndpoint: URL,
        clientID: String,
        clientSecret: String? = nil,
        clientAuthentication: ClientAuthenticationMethod? = nil,
        revocationEndpoint: URL? = nil,
        authorizationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil,
        headerScheme: String = "Bearer",
        scopes: [String] = [],
        store: any SessionStore = InMemorySessionStore(),
        automaticSignIn: (any OAuth2Grant)? = nil,
        identityVerifier: (any IdentityVerifier)? = nil,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        clock: any OAuth2Clock = SystemOAuth2Clock(),
        leeway: Duration = .seconds(30),
        refreshWindow: RefreshWindow = RefreshWindow(),
        backoff: RefreshBackoff = RefreshBackoff(),
        storesClientConfiguration: Bool = false,
        name: String = "oauth2",
        notificationCenter: NotificationCenter? = .default,
        authorizationEvents: AuthorizationEvents? = nil,
        logger: Logger = Logger(label: "clearance.oauth2")
    ) {
        self.endpoints = OAuth2Endpoints(
            token: tokenEndpoint, revocation: revocationEndpoint, authorization: authorizationEndpoint,
            deviceAuthorization: deviceAuthorizationEndpoint)
        self.client = OAuth2Client(id: clientID, secret: clientSecret, authentication: clientAuthentication)
        self.headerScheme = headerScheme
        self.scopes = scopes
        self.store = store
        self.automaticSignIn = automaticSignIn
        self.identityVerifier = identityVerifier
        self.transport = transport
        self.transportSecurity = transportSecurity
        self.clock = clock
        self.leeway = leeway
        self.refreshWindow = refreshWindow
        self.backoff = backoff
        self.storesClientConfiguration = storesClientConfiguration
        self.name = name
        self.notificationCenter = notificationCenter
        self.authorizationEvents = authorizationEvents
        self.logger = logger
    }

    /// A configuration for the session kept in `stored` (saved by a session configured with
    /// ``storesClientConfiguration``): its endpoints, client and header scheme, on `store`.
    /// A stored identity needs its verifier set again (``identityVerifier``): ClearanceOpenID's
    /// `IDTokenVerifier(restoring:)` makes one from the stored session.
    /// - Throws: ``OAuth2Error/misconfigured(reason:)`` when the stored session does not say where it came from.
    public init(stored: StoredSession, store: any SessionStore, transportSecurity: TransportSecurity = .strict, logger: Logger = Logger(label: "clearance.oauth2")) throws(OAuth2Error) {
        guard let endpoints = stored.endpoints, let client = stored.client else {
            throw .misconfigured(reason: "the stored session does not record its token endpoint and client; sign in again")
        }
        self.init(
            tokenEndpoint: endpoints.token, clientID: client.id, clientSecret: client.secret,
            clientAuthentication: client.authentication, revocationEndpoint: endpoints.revocation,
            authorizationEndpoint: endpoints.authorization, deviceAuthorizationEndpoint: endpoints.deviceAuthorization,
            headerScheme: stored.headerScheme ?? "Bearer", store: store, transportSecurity: transportSecurity,
            storesClientConfiguration: true, logger: logger)
    }

    /// The authorization server as the grants see it.
    public var server: AuthorizationServer {
        AuthorizationServer(
            endpoints: endpoints, client: client, scopes: scopes, transport: transport,
            transportSecurity: transportSecurity, clock: clock, tokenScheme: headerScheme, logger: logger)
    }
}

extension OAuth2SessionConfiguration: SecretRedacting {
    /// The name, endpoints and client without its secret.
    public var description: String {
        "OAuth2SessionConfiguration(name: \(name), token endpoint: \(Redactor.stripQueries(endpoints.token.absoluteString)), client: \(client), header scheme: \(headerScheme))"
    }
}
