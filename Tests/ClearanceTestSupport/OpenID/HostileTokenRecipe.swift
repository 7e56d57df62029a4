import ClearanceWire
import Crypto
import Foundation

/// How the hostile provider makes an ID token: its header, its claims and its signature, each
/// of which a test can spoil on purpose.
package struct HostileTokenRecipe: Sendable {
    /// How the token is signed.
    package enum Signature: Sendable {
        /// Properly, with this key.
        case key(TestKey)
        /// With this key, then a byte of the signature flipped.
        case corrupted(TestKey)
        /// HMAC-SHA256 with this secret.
        case hmac(Data)
        /// No signature at all (`alg: none`).
        case none
    }

    /// The header's `kid`.
    package enum KeyID: Sendable {
        /// The signing key's own.
        case matching
        /// None.
        case absent
        /// This one.
        case named(String)
    }

    /// The header's `alg` (and, for an RSA key, the padding it signs with: PSS for `PS256`).
    package var algorithm: String
    package var signature: Signature
    package var keyID: KeyID
    /// Changes the provider's correct claims (`iss`, `sub`, `aud`, `exp`, `iat`, `auth_time`, and
    /// at sign-in `nonce`).
    package var claims: @Sendable (inout [String: JSONValue]) -> Void
    /// Members added to the header (`crit`, say).
    package var extraHeader: [String: JSONValue]

    package init(
        algorithm: String? = nil, signature: Signature = .key(.rsa), keyID: KeyID = .matching, extraHeader: [String: JSONValue] = [:],
        claims: @escaping @Sendable (inout [String: JSONValue]) -> Void = { _ in }
    ) {
        self.signature = signature
        self.keyID = keyID
        self.extraHeader = extraHeader
        self.claims = claims
        switch signature {
        case .key(let key), .corrupted(let key): self.algorithm = algorithm ?? key.algorithm
        case .hmac: self.algorithm = algorithm ?? "HS256"
        case .none: self.algorithm = algorithm ?? "none"
        }
    }

    /// The compact JWS for `claims`.
    func token(claims base: [String: JSONValue], keys: TestSigningKeys) async throws -> String {
        var claims = base
        self.claims(&claims)
        var header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string("JWT")]
        header.merge(extraHeader) { $1 }
        switch (keyID, signature) {
        case (.named(let name), _): header["kid"] = .string(name)
        case (.matching, .key(let key)), (.matching, .corrupted(let key)): header["kid"] = .string(key.rawValue)
        case (.matching, _), (.absent, _): break
        }
        let input = Base64URL.encode(Data(JSONValue.object(header).jsonText.utf8)) + "." + Base64URL.encode(Data(JSONValue.object(claims).jsonText.utf8))
        let signatureBytes: [UInt8]
        switch signature {
        case .key(let key):
            signatureBytes = try await keys.sign(Data(input.utf8), with: key, algorithm: algorithm)
        case .corrupted(let key):
            var bytes = try await keys.sign(Data(input.utf8), with: key, algorithm: algorithm)
            bytes[bytes.count / 2] ^= 0x01
            signatureBytes = bytes
        case .hmac(let secret):
            signatureBytes = Array(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret)))
        case .none:
            signatureBytes = []
        }
        return input + "." + Base64URL.encode(Data(signatureBytes))
    }
}
