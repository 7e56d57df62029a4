import Clearance
import Crypto
import Foundation

/// Signs and verifies Pusher webhooks: `X-Pusher-Signature` is the lower-case hex
/// HMAC-SHA256 of the raw body, keyed with the app secret; `X-Pusher-Key` names the app.
///
/// Verification covers the key and the signature only. Pusher's webhook bodies also carry
/// `time_ms`; checking its age (the Python library allows 300 s) is left to the caller, who has
/// parsed the body anyway.
public struct WebhookSigner: Sendable {
    /// `X-Pusher-Key`
    public static let keyHeaderName = "X-Pusher-Key"
    /// `X-Pusher-Signature`
    public static let signatureHeaderName = "X-Pusher-Signature"

    /// The app key sent in `X-Pusher-Key`.
    public let key: String

    private let mac: KeyedHMAC

    /// Creates a signer, validating its configuration.
    ///
    /// - Throws: ``SigningError/invalidKey`` or ``SigningError/emptySecret``.
    public init(key: String, secret: String) throws(SigningError) {
        guard !key.isEmpty, !key.utf8.contains(UInt8(ascii: ":")) else { throw .invalidKey }
        guard !secret.isEmpty else { throw .emptySecret }
        self.key = key
        mac = KeyedHMAC(secret: secret)
    }

    /// Lower-case hex HMAC-SHA256 of `body`.
    public func signature(body: some DataProtocol) -> String {
        KeyedHMAC.hex(mac.code(for: body))
    }

    /// The headers to send with `body`: `X-Pusher-Key` and `X-Pusher-Signature`.
    public func headers(body: some DataProtocol) -> [String: String] {
        [Self.keyHeaderName: key, Self.signatureHeaderName: signature(body: body)]
    }

    /// Whether `key` is this app's key and `signature` is the body's signature, compared in
    /// constant time.
    public func verify(key: String, signature: String, body: some DataProtocol) -> Bool {
        let keyMatches = ConstantTime.equals(self.key, key)
        let signatureMatches = KeyedHMAC.matches(hex: signature, code: mac.code(for: body))
        return keyMatches && signatureMatches
    }
}
