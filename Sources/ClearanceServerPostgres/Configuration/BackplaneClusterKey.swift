import Clearance
import Crypto
import Foundation

/// The secret every node of a cluster shares: every message between nodes (notifications and
/// stored payloads) is sealed with a key derived from it (HKDF-SHA256, then ChaChaPoly), so that
/// a database role that can `LISTEN` reads nothing and one that can `pg_notify` forges nothing.
///
/// At least ``minimumLength`` characters; `openssl rand -base64 48` makes a good one. Give every
/// node the same one (`clearance serve --cluster-key-file PATH`, `--cluster-key -` or
/// `CLEARANCE_CLUSTER_KEY`); a node with another key is a stranger whose messages are dropped.
/// `description` never shows it.
public struct BackplaneClusterKey: Sendable, SecretRedacting {
    /// The fewest characters a cluster secret may have.
    public static let minimumLength = 32

    /// The sealing key derived from the secret.
    let key: SymmetricKey
    /// The key that names what the database must find without reading it (a channel in the
    /// occupancy table): HMAC-SHA256, derived apart from the sealing key.
    let naming: SymmetricKey

    /// A key from `secret`.
    /// - Throws: ``PostgresBackplaneError/clusterKeyTooShort(minimum:)`` for fewer than
    ///   ``minimumLength`` characters.
    public init(secret: String) throws(PostgresBackplaneError) {
        guard secret.count >= Self.minimumLength else { throw .clusterKeyTooShort(minimum: Self.minimumLength) }
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)),
            salt: Data("clearance-backplane".utf8),
            info: Data("clearance backplane sealing key v1".utf8),
            outputByteCount: 32)
        naming = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)),
            salt: Data("clearance-backplane".utf8),
            info: Data("clearance backplane naming key v1".utf8),
            outputByteCount: 32)
    }

    /// The lower-case hex HMAC of `text` under ``naming``: equal for equal texts, and nothing
    /// about the text to a reader without the key.
    func name(_ text: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: naming).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// `BackplaneClusterKey(<redacted>)`.
    public var description: String { "BackplaneClusterKey(\(Redactor.mask))" }
}
