import Foundation
import JWTKit

/// The JWS payload of an App Store signed transaction as Apple encodes it (dates in
/// milliseconds since 1970). Its claims are checked by ``AppStoreTransactionVerifier``.
struct SignedTransactionPayload: JWTPayload, ValidationTimePayload {
    var transactionId: String
    var originalTransactionId: String
    var bundleId: String
    var productId: String
    var purchaseDate: Int64
    var expiresDate: Int64?
    var revocationDate: Int64?
    var signedDate: Date { Date(timeIntervalSince1970: TimeInterval(signedDateMilliseconds) / 1000) }
    var signedDateMilliseconds: Int64
    var environment: String
    var type: String?

    enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, bundleId, productId, purchaseDate, expiresDate, revocationDate, environment, type
        case signedDateMilliseconds = "signedDate"
    }

    /// Checked by the verifier (bundle id, environment), not here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The transaction, or nil for an environment this build does not know.
    var transaction: AppStoreTransaction? {
        guard let environment = AppStoreEnvironment(rawValue: environment) else { return nil }
        func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }
        return AppStoreTransaction(
            productID: productId, transactionID: transactionId, originalTransactionID: originalTransactionId, bundleID: bundleId,
            environment: environment, purchaseDate: date(purchaseDate), expiresDate: expiresDate.map(date),
            revocationDate: revocationDate.map(date), signedDate: signedDate, type: type)
    }
}
