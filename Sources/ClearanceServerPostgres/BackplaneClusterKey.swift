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
    }

    /// `BackplaneClusterKey(<redacted>)`.
    public var description: String { "BackplaneClusterKey(\(Redactor.mask))" }
}
