/// Why `SecretBox.seal` or `SecretBox.open` refused its input.
///
/// Messages describe lengths only; they never contain key, nonce, or message bytes.
public enum SecretBoxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key was not ``SecretBox/keyLength`` (32) bytes long; carries the length received.
    case invalidKeyLength(Int)
    /// The nonce was not ``SecretBox/nonceLength`` (24) bytes long; carries the length received.
    case invalidNonceLength(Int)
    /// The box was shorter than the ``SecretBox/tagLength`` (16) byte tag; carries its length.
    case boxTooShort(Int)
    /// The tag did not verify: wrong key, wrong nonce, or the box was altered or truncated.
    /// No plaintext is released.
    case authenticationFailed

    /// A stable machine-readable identifier, such as `"secretbox.authenticationFailed"`.
    public var code: String {
        switch self {
        case .invalidKeyLength: "secretbox.invalidKeyLength"
        case .invalidNonceLength: "secretbox.invalidNonceLength"
        case .boxTooShort: "secretbox.boxTooShort"
        case .authenticationFailed: "secretbox.authenticationFailed"
        }
    }

    /// A human-readable explanation. Mentions lengths only, never secret bytes.
    public var message: String {
        switch self {
        case .invalidKeyLength(let length):
            "secretbox key must be \(SecretBox.keyLength) bytes, got \(length)"
        case .invalidNonceLength(let length):
            "secretbox nonce must be \(SecretBox.nonceLength) bytes, got \(length)"
        case .boxTooShort(let length):
            "secretbox box must be at least \(SecretBox.tagLength) bytes (the tag), got \(length)"
        case .authenticationFailed:
            "secretbox authentication failed: wrong key or nonce, or the box was altered"
        }
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
