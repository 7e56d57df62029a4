import Clearance
import Crypto
import Foundation

/// The key the apps' secrets are sealed with in the apps database (`--apps-key`): the app
/// secrets, encryption master keys and webhook targets (their URLs and headers) of every app.
/// The same on every hub and for `clearance apps`; it never reaches the database, only its id
/// (``id``) does, so that a row sealed with another key is named as such.
public struct PostgresAppsKey: Sendable, SecretRedacting {
    /// The shortest secret accepted: 32 characters (`openssl rand -base64 48` makes one).
    public static let minimumLength = 32

    let key: SymmetricKey
    /// A short public name of this key (12 hex digits), stored beside each sealed row.
    public let id: String

    /// A key from a secret of at least ``minimumLength`` characters.
    /// - Throws: ``PostgresAppsError/keyTooShort(minimum:)``.
    public init(secret: String) throws(PostgresAppsError) {
        guard secret.count >= Self.minimumLength else { throw .keyTooShort(minimum: Self.minimumLength) }
        let material = SymmetricKey(data: Data(secret.utf8))
        let salt = Data("clearance-apps".utf8)
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: material, salt: salt, info: Data("clearance apps sealing key v1".utf8), outputByteCount: 32)
        let naming = HKDF<SHA256>.deriveKey(inputKeyMaterial: material, salt: salt, info: Data("clearance apps key id v1".utf8), outputByteCount: 6)
        id = naming.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }

    /// `PostgresAppsKey(id: …)`: never the key.
    public var description: String { "PostgresAppsKey(id: \(id), \(Redactor.mask))" }
}
