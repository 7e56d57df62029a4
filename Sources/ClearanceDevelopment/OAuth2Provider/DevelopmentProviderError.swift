import Clearance

/// Why the ``DevelopmentOAuth2Provider`` refused to start or to accept a token.
public enum DevelopmentProviderError: ClearanceError, Equatable {
    /// HS256 needs a key of at least 256 bits (jwt-kit traps on shorter ones in debug builds).
    case signingKeyTooShort(bits: Int)
    /// A token lifetime (`accessTokenLifetime` or `refreshTokenLifetime`) is not more than 0 and
    /// at most ten years.
    case invalidLifetime(name: String)
    /// The access token was revoked.
    case revoked

    public static let codeDomain = "development.provider"

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .signingKeyTooShort(let bits): .init(.signingKeyTooShort, "The development provider's signing key has \(bits) bits; HS256 needs at least 256.")
        case .invalidLifetime(let name): .init(.invalidLifetime, "The development provider's \(name) must be more than 0 and at most ten years.")
        case .revoked: .init(.revoked, "The access token was revoked.")
        }
    }

    /// Stable codes; ``qualifiedCode`` is `development.provider.<code>`.
    public enum Code: String, Sendable, CaseIterable { case signingKeyTooShort, invalidLifetime, revoked }
}
