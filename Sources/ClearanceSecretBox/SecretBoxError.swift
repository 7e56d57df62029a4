import Clearance

/// Why `SecretBox.seal` or `SecretBox.open` refused its input.
///
/// Messages describe lengths only; they never contain key, nonce, or message bytes.
public enum SecretBoxError: ClearanceError, Equatable {
    /// The key was not ``SecretBox/keyLength`` (32) bytes long; carries the length received.
    case invalidKeyLength(Int)
    /// The nonce was not ``SecretBox/nonceLength`` (24) bytes long; carries the length received.
    case invalidNonceLength(Int)
    /// The box was shorter than the ``SecretBox/tagLength`` (16) byte tag; carries its length.
    case boxTooShort(Int)
    /// The tag did not verify: wrong key, wrong nonce, or the box was altered or truncated.
    /// No plaintext is released.
    case authenticationFailed

    public static let codeDomain = "secretbox"

    /// Each case's code and message (which mentions lengths only, never secret bytes).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .invalidKeyLength(let length): .init(.invalidKeyLength, "secretbox key must be \(SecretBox.keyLength) bytes, got \(length)")
        case .invalidNonceLength(let length): .init(.invalidNonceLength, "secretbox nonce must be \(SecretBox.nonceLength) bytes, got \(length)")
        case .boxTooShort(let length): .init(.boxTooShort, "secretbox box must be at least \(SecretBox.tagLength) bytes (the tag), got \(length)")
        case .authenticationFailed: .init(.authenticationFailed, "secretbox authentication failed: wrong key or nonce, or the box was altered")
        }
    }

    /// Stable machine-readable codes, one per failure; ``qualifiedCode`` is `secretbox.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case invalidKeyLength, invalidNonceLength, boxTooShort, authenticationFailed
    }
}
