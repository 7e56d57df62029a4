import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceTestSupport
import ClearanceTesting
import ClearanceWire
import Foundation
import HTTPTypes
import Logging

/// A test server, a manual clock, a store and a log capture, and sessions and clients wired to them.
struct SessionHarness {
    let server: TestAuthorizationServer
    let clock = ManualClock()
    let logs = LogCapture()

    static func start(_ configuration: TestAuthorizationServer.Configuration = .init()) async throws -> SessionHarness {
        SessionHarness(server: try await TestAuthorizationServer.start(configuration))
    }

    /// A harness whose server runs the default configuration as `adjust` changes it.
    static func start(_ adjust: (inout TestAuthorizationServer.Configuration) -> Void) async throws -> SessionHarness {
        var configuration = TestAuthorizationServer.Configuration()
        adjust(&configuration)
        return try await start(configuration)
    }

    func stop() async { await server.stop() }

    /// The default configuration, to adjust before making a session of it.
    func configuration() -> OAuth2SessionConfiguration { session().configuration }

    func session(
        store: any SessionStore = InMemorySessionStore(),
        automaticSignIn: (any OAuth2Grant)? = nil,
        authentication: ClientAuthenticationMethod = .clientSecretBasic,
        headerScheme: String = "Bearer",
        revocation: Bool = true,
        refreshWindow: RefreshWindow = RefreshWindow(),
        backoff: RefreshBackoff = RefreshBackoff(),
        notificationCenter: NotificationCenter? = nil,
        clock: (any OAuth2Clock)? = nil
    ) -> OAuth2Session {
        OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: server.tokenURL,
            clientID: server.configuration.clientID,
            clientSecret: server.configuration.clientSecret,
            clientAuthentication: authentication,
            revocationEndpoint: revocation ? server.revocationURL : nil,
            authorizationEndpoint: server.authorizationURL,
            deviceAuthorizationEndpoint: server.deviceAuthorizationURL,
            headerScheme: headerScheme,
            store: store,
            automaticSignIn: automaticSignIn,
            clock: clock ?? self.clock,
            refreshWindow: refreshWindow,
            backoff: backoff,
            notificationCenter: notificationCenter,
            logger: logs.logger("clearance.oauth2")))
    }

    /// A session made as ``session(store:automaticSignIn:authentication:headerScheme:revocation:refreshWindow:backoff:notificationCenter:clock:)``
    /// makes it, signed in with ``password``.
    func signedInSession(
        store: any SessionStore = InMemorySessionStore(), revocation: Bool = true, backoff: RefreshBackoff = RefreshBackoff()
    ) async throws -> OAuth2Session {
        let session = session(store: store, revocation: revocation, backoff: backoff)
        try await session.signIn(with: password)
        return session
    }

    /// An authorized client that puts the session's token on every request.
    func client(_ session: OAuth2Session) throws -> AuthorizedClient {
        let authorizer = try RequestAuthorizer(policy: .always("oauth2"), sources: ["oauth2": session], logger: logs.logger("clearance.authorizer"))
        return AuthorizedClient(authorizer: authorizer, logger: logs.logger("clearance.http"))
    }

    /// A password sign-in with the server's user.
    var password: PasswordGrant {
        let (user, password) = server.configuration.users.first!
        return PasswordGrant(username: user, password: password)
    }

    /// PodioKit's app grant with the server's app.
    var app: ExtensionGrant {
        let (id, token) = server.configuration.apps.first!
        return .podioApp(appID: id, appToken: token)
    }

    /// Every secret the tests put in play, for searching the logs.
    var configuredSecrets: [String] {
        [server.configuration.clientSecret, PercentEncoding.formEncode(server.configuration.clientSecret)]
            + server.configuration.users.values + server.configuration.apps.values
    }

    /// GET the protected API through `client`; returns the status.
    func callAPI(_ client: AuthorizedClient) async throws(AuthorizationError) -> Int {
        let (response, _) = try await client.send(.get, server.apiURL)
        return response.status.code
    }
}
