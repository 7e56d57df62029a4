import ClearanceSigning
import Hummingbird

/// The hub's built-in answer to "who is calling, and may they?": a fixed list of
/// ``DevelopmentUser``s, for development and tests.
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
        for user in users where ConstantTimeComparison.equals(user.token, token) {
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
    public func decide(_ request: AuthorizationRequest<DevelopmentUser>) -> AuthorizationDecision {
        guard let user = request.caller else { return .deny }
        return .allowAs(AuthorizedUser(id: user.id, info: user.info))
    }

    /// Auth endpoints that sign with `signer` for these users.
    public func endpoints(signer: ChannelAuthSigner) -> PusherAuthEndpoints<some CallerIdentifier<DevelopmentUser>> {
        PusherAuthEndpoints(signer: signer, identifier: identifier) { request in self.decide(request) }
    }
}
