/// What happened to the token at the server when the app signed out (RFC 7009).
/// Sign-out succeeds locally whatever the outcome.
public enum RevocationOutcome: Sendable, CustomStringConvertible {
    /// The server revoked the refresh token (or, without one, the access token).
    case revoked(tokenTypeHint: String)
    /// No revocation endpoint is configured.
    case notConfigured
    /// There was no token to revoke.
    case nothingToRevoke
    /// The revocation request failed; the session was signed out anyway.
    case failed(OAuth2Error)

    public var description: String {
        switch self {
        case .revoked(let hint): "revoked(\(hint))"
        case .notConfigured: "notConfigured"
        case .nothingToRevoke: "nothingToRevoke"
        case .failed(let error): "failed(\(error.qualifiedCode))"
        }
    }
}
