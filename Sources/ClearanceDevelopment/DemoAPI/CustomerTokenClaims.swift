import Foundation
import JWTKit

/// The payload of a Bloomreach-style customer token: `sub` is the customer ids object, `exp` optional.
public struct CustomerTokenClaims: JWTPayload, Equatable {
    /// The customer ids, e.g. `["registered": "jane@example.com"]`.
    public var sub: [String: String]
    /// When the token expires.
    public var exp: ExpirationClaim?

    public init(customerIDs: [String: String], expiresAt: Date?) {
        self.sub = customerIDs
        self.exp = expiresAt.map { ExpirationClaim(value: $0) }
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp?.verifyNotExpired()
    }
}
