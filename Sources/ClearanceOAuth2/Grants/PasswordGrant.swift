import Clearance

/// The resource owner password credentials grant (RFC 6749 §4.3): PodioKit's "sign in as a user".
///
/// Deprecated by OAuth 2.1 for third-party clients; still what first-party apps of many APIs
/// use. Its `description` never shows the password.
public struct PasswordGrant: OAuth2Grant, SecretRedacting {
    /// The user name (PodioKit: the email address).
    public var username: String
    /// The password. Secret.
    public var password: String
    /// The scopes to ask for; `nil` uses the session's.
    public var scopes: [String]?

    public init(username: String, password: String, scopes: [String]? = nil) {
        self.username = username
        self.password = password
        self.scopes = scopes
    }

    public var grantName: String { "password" }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        let fields = Self.appendingScope(
            scopes, defaults: server.scopes,
            to: [("grant_type", "password"), ("username", username), ("password", password)])
        return try await server.requestToken(fields)
    }

    public var description: String { "PasswordGrant(username: \(username), password: \(Redactor.mask))" }
}
