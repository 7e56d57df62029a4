import Clearance
import ClearanceStore
import Foundation

/// What ``PugpigEntitlementProvider`` keeps in its `SecureStore` while signed in: the token,
/// the optional global auth password, and the last snapshot. Nothing is stored once the
/// session ends.
///
/// Holds secrets (the token and the password): its `description` shows neither.
public struct StoredEntitlements: Sendable, Hashable, Codable, SecretRedacting {
    /// The envelope format of an entitlement store file (`EncryptedFileStore.format`).
    public static let format = "clearance.entitlements"

    /// The service's token. Secret.
    public var token: String
    /// Pugpig's optional `global_auth_password` (sent by Pugpig apps in the `Authorization`
    /// header of feed requests). Secret.
    public var globalAuthPassword: String?
    /// The last snapshot, if verified.
    public var snapshot: EntitlementSnapshot?
    /// When this was saved.
    public var savedAt: Date

    /// Creates a stored session.
    public init(token: String, globalAuthPassword: String? = nil, snapshot: EntitlementSnapshot? = nil, savedAt: Date = Date()) {
        self.token = token
        self.globalAuthPassword = globalAuthPassword
        self.snapshot = snapshot
        self.savedAt = savedAt
    }

    /// An encrypted file store for these (format ``format``), as the command line uses.
    public static func fileStore(at fileURL: URL, key: SessionStoreKey) -> EncryptedFileStore<StoredEntitlements> {
        EncryptedFileStore(fileURL: fileURL, key: key, format: format)
    }

    public var description: String {
        "StoredEntitlements(token: \(Redactor.mask)\(globalAuthPassword == nil ? "" : ", globalAuthPassword: \(Redactor.mask)"), snapshot: \(snapshot.map(\.description) ?? "none"))"
    }
}
