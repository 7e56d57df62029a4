import Foundation

/// What a verified customer token says: who the customer is. Holds no token.
public struct VerifiedCustomerToken: Sendable, Hashable {
    /// The key that signed it (`kid`).
    public let keyID: String
    /// The customer ids (`sub`), e.g. `["registered": "jane@example.com"]`.
    public let customerIDs: [String: String]
    /// Its `exp`, if it has one.
    public let expiresAt: Date?

    /// A verified token's contents.
    public init(keyID: String, customerIDs: [String: String], expiresAt: Date?) {
        self.keyID = keyID
        self.customerIDs = customerIDs
        self.expiresAt = expiresAt
    }
}
