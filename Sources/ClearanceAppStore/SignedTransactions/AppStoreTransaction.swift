import Foundation

/// A verified App Store transaction: the fields of Apple's `JWSTransactionDecodedPayload` that
/// decide an entitlement. Carries no secret (the app account token is an identifier).
public struct AppStoreTransaction: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The product bought.
    public var productID: String
    /// This transaction's id.
    public var transactionID: String
    /// The original purchase's id (the same for every renewal of a subscription).
    public var originalTransactionID: String
    /// The app's bundle id.
    public var bundleID: String
    /// The environment.
    public var environment: AppStoreEnvironment
    /// When it was bought (or renewed).
    public var purchaseDate: Date
    /// When an auto-renewable subscription period ends, if it is one.
    public var expiresDate: Date?
    /// When Apple refunded or revoked it, if it did.
    public var revocationDate: Date?
    /// When the App Store signed it.
    public var signedDate: Date
    /// Apple's product type (`Auto-Renewable Subscription`, `Non-Consumable`, …).
    public var type: String?

    /// Creates a transaction (tests and apps that map their own values).
    public init(
        productID: String, transactionID: String, originalTransactionID: String, bundleID: String, environment: AppStoreEnvironment,
        purchaseDate: Date, expiresDate: Date? = nil, revocationDate: Date? = nil, signedDate: Date, type: String? = nil
    ) {
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.bundleID = bundleID
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.signedDate = signedDate
        self.type = type
    }

    /// True when it grants its product at `date`: not revoked, and not expired (when it expires).
    public func isActive(at date: Date) -> Bool {
        revocationDate == nil && (expiresDate.map { $0 > date } ?? true)
    }

    public var description: String {
        "AppStoreTransaction(\(productID), id \(transactionID), \(environment.rawValue)\(expiresDate.map { ", expires \($0.formatted(.iso8601))" } ?? "")\(revocationDate == nil ? "" : ", revoked"))"
    }
}
