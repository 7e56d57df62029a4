import Clearance
import ClearanceWire
import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) with the `S256` method.
///
/// The verifier is 43–128 characters of `[A-Za-z0-9-._~]`; the challenge is
/// `BASE64URL(SHA256(ASCII(verifier)))` without padding. Its `description` never shows the verifier.
public struct PKCE: Sendable, Hashable {
    /// The code verifier, sent with the code exchange. Secret.
    public let verifier: String
    /// The code challenge, sent in the authorization request.
    public let challenge: String
    /// The challenge method: always `S256` (the `plain` method offers no protection and is not offered).
    public var method: String { "S256" }

    /// A fresh pair: 32 random bytes, base64url-encoded into a 43-character verifier.
    public init() {
        let key = SymmetricKey(size: .bits256)
        let verifier = key.withUnsafeBytes { Base64URL.encode(Data($0)) }
        self.verifier = verifier
        self.challenge = Self.challenge(for: verifier)
    }

    /// The pair for a given verifier.
    /// - Throws: ``OAuth2Error/misconfigured(reason:)`` when it is not 43–128 characters of `[A-Za-z0-9-._~]`.
    public init(verifier: String) throws(OAuth2Error) {
        guard Self.isValidVerifier(verifier) else {
            throw .misconfigured(reason: "a PKCE code verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_', '~'")
        }
        self.verifier = verifier
        self.challenge = Self.challenge(for: verifier)
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))` without padding.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether `verifier` has RFC 7636's length and alphabet.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                true
            default:
                false
            }
        }
    }
}

extension PKCE: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "PKCE(S256, challenge: \(challenge), verifier: \(Redactor.mask))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["challenge": challenge, "verifier": Redactor.mask], displayStyle: .struct) }
}
