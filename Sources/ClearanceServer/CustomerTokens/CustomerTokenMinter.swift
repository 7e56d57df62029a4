import Foundation
import JWTKit

/// Mints Bloomreach customer tokens the way an app's backend does: HS256, header `kid` = the
/// private API key id, payload `sub` = the customer ids object, `exp` = now + TTL (whole seconds).
///
/// ```swift
/// let minter = await CustomerTokenMinter(key: try CustomerTokenKey(id: keyID, secret: secret))
/// let jwt = try await minter.mint(customerIDs: ["registered": "jane@example.com"], ttl: 3600)
/// ```
public struct CustomerTokenMinter: Sendable {
    /// The longest TTL accepted: one year.
    public static let maximumTTL: TimeInterval = 365 * 24 * 3600

    /// The key id tokens name.
    public var keyID: String { key.id }
    private let key: CustomerTokenKey
    private let keys: JWTKeyCollection
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - key: The private API key (id and secret).
    ///   - now: The clock; injectable for tests.
    public init(key: CustomerTokenKey, now: @escaping @Sendable () -> Date = { Date() }) async {
        self.key = key
        self.now = now
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .integerSecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: key.secret), digestAlgorithm: .sha256, serializer: DefaultJWTSerializer(jsonEncoder: encoder))
    }

    /// A token for `customerIDs` that expires `ttl` seconds from now.
    /// - Throws: ``CustomerTokenError/invalidConfiguration(reason:)`` when `ttl` is not in
    ///   1…``maximumTTL`` seconds or the customer ids are empty or hold an empty name or id.
    public func mint(customerIDs: [String: String], ttl: TimeInterval) async throws(CustomerTokenError) -> String {
        guard ttl.isFinite, ttl >= 1, ttl <= Self.maximumTTL else {
            throw .invalidConfiguration(reason: "the TTL must be between 1 and \(Int(Self.maximumTTL)) seconds")
        }
        return try await mint(customerIDs: customerIDs, expiresAt: now().addingTimeInterval(ttl))
    }

    /// A token for `customerIDs` that expires at `expiresAt` (rounded down to the second; a past
    /// date mints an expired token, for tests), or never when nil.
    /// - Throws: ``CustomerTokenError/invalidConfiguration(reason:)`` for empty customer ids;
    ///   ``CustomerTokenError/signingFailed(reason:)`` if jwt-kit cannot sign.
    public func mint(customerIDs: [String: String], expiresAt: Date?) async throws(CustomerTokenError) -> String {
        guard !customerIDs.isEmpty, customerIDs.allSatisfy({ !$0.key.isEmpty && !$0.value.isEmpty }) else {
            throw .invalidConfiguration(reason: "a customer token names at least one customer id, each with a non-empty name and value")
        }
        if let expiresAt, !(abs(expiresAt.timeIntervalSince1970) < 1e11) {
            throw .invalidConfiguration(reason: "the expiry is out of range")
        }
        let payload = CustomerTokenPayload(sub: customerIDs, exp: expiresAt.map { ExpirationClaim(value: $0) })
        do {
            return try await keys.sign(payload, kid: JWKIdentifier(string: key.id))
        } catch {
            throw .signingFailed(reason: "\(error)")
        }
    }
}
