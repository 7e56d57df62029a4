import Clearance
import ClearanceServer
import ClearanceSigning
import Hummingbird

/// A development answer to "who is calling, and may they?" for the auth endpoints: a fixed
/// list of ``DevelopmentUser``s, for development and tests (`clearance serve`, the demo).
///
/// A caller is the user whose token arrives as `Authorization: Bearer <token>`, as the
/// `clearance_token` cookie, or as the password of HTTP Basic (any user name). Known users may
/// subscribe to every channel (as themselves on presence channels) and sign in; unknown callers
/// are denied. Tokens are compared in constant time.
public struct DevelopmentUserDirectory: Sendable {
    /// The cookie that may carry a token.
    public static let cookieName = "clearance_token"

    /// The users.
    public let users: [DevelopmentUser]

    /// Creates a directory.
    public init(users: [DevelopmentUser]) {
        self.users = users
    }

    /// The user whose token is `token`, if any.
    public func user(forToken token: String) -> DevelopmentUser? {
        var found: DevelopmentUser?
        // Compare with every user so the time taken does not reveal which one matched.
        for user in users where ConstantTime.equals(user.token, token) {
            found = user
        }
        return found
    }

    /// Bearer, then the cookie, then Basic.
    public var identifier: some CallerIdentifier<DevelopmentUser> {
        let bearer = BearerTokenIdentifier { token in self.user(forToken: token) }
        let cookie = CookieIdentifier(name: Self.cookieName) { token in self.user(forToken: token) }
        let basic = BasicCredentialsIdentifier { _, password in self.user(forToken: password) }
        return FallbackCallerIdentifier(bearer, FallbackCallerIdentifier(cookie, basic))
    }

    /// Allows known users everything (as themselves), denies unknown callers.
    public func decide(_ request: AuthEndpointRequest<DevelopmentUser>) -> AuthorizationDecision {
        guard let user = request.caller else { return .deny }
        return .allowAs(AuthorizedUser(id: user.id, info: user.info))
    }

    /// Auth endpoints that sign with `signer` for these users, answering pages of other origins
    /// as `cors` says (default: none).
    public func endpoints(signer: ChannelAuthSigner, cors: CORSSettings? = nil) -> PusherAuthEndpoints<some CallerIdentifier<DevelopmentUser>> {
        PusherAuthEndpoints(signer: signer, identifier: identifier, cors: cors) { request in self.decide(request) }
    }

    /// Routes that mount these users' auth endpoints (`/pusher/auth`, `/pusher/user-auth`),
    /// signing with the first app of `configuration`: pass them to `HubServer.start` or
    /// `HubService` as `additionalRoutes`. They answer pages of the app's `allowedOrigins`
    /// (every origin when it has none) cross origin (CORS), with credentials (the
    /// `clearance_token` cookie) only when `allowsCredentials` and the app lists its origins.
    /// - Throws: `HubConfigurationError` when the configuration has no usable first app.
    public func routes(
        signingFor configuration: HubConfiguration, allowsCredentials: Bool = false
    ) throws(HubConfigurationError) -> @Sendable (Router<BasicRequestContext>) -> Void {
        guard let app = configuration.apps.first else { throw .noApps }
        let signer: ChannelAuthSigner
        do {
            signer = try app.signer(limits: configuration.limits)
        } catch {
            throw .invalidApp(id: app.id, reason: error)
        }
        let cors = CORSSettings(origins: try app.originAllowlist(), allowsCredentials: allowsCredentials)
        let endpoints = endpoints(signer: signer, cors: cors)
        return { router in endpoints.register(on: router) }
    }

    /// Checks the users: non-empty unique tokens, and unique ids of 1–128 characters.
    public func validate() throws(DevelopmentUserError) {
        var tokens = Set<String>()
        var ids = Set<String>()
        for user in users {
            guard !user.token.isEmpty, tokens.insert(user.token).inserted else { throw .invalidUser(id: user.id) }
            guard !user.id.isEmpty, user.id.utf16.count <= PresenceChannelData.maxUserIDLength, ids.insert(user.id).inserted else {
                throw .invalidUser(id: user.id)
            }
        }
    }
}
