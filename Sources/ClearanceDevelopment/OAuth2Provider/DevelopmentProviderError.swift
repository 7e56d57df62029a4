/// Why the ``DevelopmentOAuth2Provider`` refused to start or to accept a token.
public enum DevelopmentProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// HS256 needs a key of at least 256 bits (jwt-kit traps on shorter ones in debug builds).
    case signingKeyTooShort(bits: Int)
    /// The access token was revoked.
    case revoked

    public var description: String {
        switch self {
        case .signingKeyTooShort(let bits): "the development provider's signing key has \(bits) bits; HS256 needs at least 256"
        case .revoked: "the access token was revoked"
        }
    }
}
