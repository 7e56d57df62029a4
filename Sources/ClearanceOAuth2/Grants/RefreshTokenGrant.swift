import Clearance

/// The refresh token grant (RFC 6749 §6). The session uses it itself; it is public for apps
/// that hold a refresh token from elsewhere. Its `description` never shows the token.
public struct RefreshTokenGrant: OAuth2Grant, SecretRedacting {
    /// The refresh token. Secret.
    public var refreshToken: String
    /// The scopes to ask for; `nil` asks for the ones originally granted (no `scope` field is sent).
    public var scopes: [String]?

    public init(refreshToken: String, scopes: [String]? = nil) {
        self.refreshToken = refreshToken
        self.scopes = scopes
    }

    public var grantName: String { "refresh_token" }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        var fields: [(name: String, value: String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes, !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        return try await server.requestToken(fields)
    }

    public var description: String { "RefreshTokenGrant(\(Redactor.mask))" }
}
