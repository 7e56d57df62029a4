import Clearance
import ClearanceStore
import Foundation

/// What a ``CustomerTokenSource`` keeps in its `SecureStore`: the current customer token and
/// the customer it was fetched for, which is its key (a token is restored only for that very
/// customer, and the record is cleared when the customer changes).
///
/// Holds a secret (the token): its `description` does not show it.
public struct StoredCustomerToken: Sendable, Hashable, Codable, SecretRedacting {
    /// The envelope format of a customer-token store file (`EncryptedFileStore.format`).
    public static let format = "clearance.customer-token"

    /// The customer the token was fetched for.
    public var customerIDs: CustomerIDs
    /// The JWT. Secret.
    public var token: String
    /// When the token expires: its `exp`, or its arrival plus the source's `maxAge`; nil when
    /// neither applies (it is then kept until the customer changes or the server refuses it).
    public var expiresAt: Date?
    /// When it arrived from the provider.
    public var receivedAt: Date

    /// A stored token.
    public init(customerIDs: CustomerIDs, token: String, expiresAt: Date?, receivedAt: Date) {
        self.customerIDs = customerIDs
        self.token = token
        self.expiresAt = expiresAt
        self.receivedAt = receivedAt
    }

    /// An encrypted file store for these (AES-256-GCM, format ``format``), by default
    /// `customer-token.json` in `SecureStoreLocation.defaultDirectory`.
    public static func fileStore(
        at fileURL: URL = SecureStoreLocation.defaultDirectory().appendingPathComponent("customer-token.json"),
        key: SessionStoreKey
    ) -> EncryptedFileStore<StoredCustomerToken> {
        EncryptedFileStore(fileURL: fileURL, key: key, format: format)
    }

    public var description: String {
        "StoredCustomerToken(\(customerIDs), token: \(Redactor.mask), expiresAt: \(expiresAt.map { "\($0)" } ?? "none"))"
    }
}
