import Clearance
import Crypto
import Foundation

/// A private API key as customer tokens are signed with it: its id (the token header's `kid`)
/// and its secret (the HS256 key). Its `description` never shows the secret.
public struct CustomerTokenKey: Sendable, CustomStringConvertible {
    /// The shortest secret accepted, in bytes (HS256's output size: jwt-kit traps in debug
    /// builds on shorter HMAC keys, so they are refused before it sees them).
    public static let minimumSecretLength = 32
    /// The longest key id accepted.
    public static let maximumIDLength = 256

    /// The key id (`kid`).
    public let id: String
    let secret: SymmetricKey

    /// - Throws: ``CustomerTokenError/weakSecret(byteCount:)`` for a secret shorter than 32
    ///   bytes; ``CustomerTokenError/invalidConfiguration(reason:)`` for an empty key id, one
    ///   longer than 256 characters or holding control characters.
    public init(id: String, secret: some DataProtocol) throws(CustomerTokenError) {
        guard !id.isEmpty, id.count <= Self.maximumIDLength,
              !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidConfiguration(reason: "the key id must be 1 to \(Self.maximumIDLength) characters without control characters")
        }
        guard secret.count >= Self.minimumSecretLength else { throw .weakSecret(byteCount: secret.count) }
        self.id = id
        self.secret = SymmetricKey(data: Data(secret))
    }

    /// A key whose secret is the UTF-8 bytes of `secret` (as Bloomreach shows a private key's secret).
    public init(id: String, secret: String) throws(CustomerTokenError) {
        try self.init(id: id, secret: Data(secret.utf8))
    }

    public var description: String { "CustomerTokenKey(id: \(id), secret: \(Redactor.mask))" }
}
