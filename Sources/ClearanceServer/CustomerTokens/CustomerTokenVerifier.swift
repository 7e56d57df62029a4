import ClearanceWire
import Foundation
import JWTKit

/// Verifies Bloomreach customer tokens: HS256 only, signed by one of the configured private API
/// keys (named by the header's `kid`), not expired, `sub` a customer ids object.
///
/// Refuses, each with its own ``CustomerTokenError``: malformed input (before any cryptography),
/// `alg: none`, any other algorithm, a missing or unknown `kid` (never "the default key"), a
/// tampered payload or signature, claims that are not a customer token's, an expired token and
/// one not valid yet (both with a clock leeway of at most 60 s).
public struct CustomerTokenVerifier: Sendable {
    /// The largest clock leeway accepted.
    public static let maximumLeeway: TimeInterval = 60

    /// The clock leeway applied to `exp` and `nbf`.
    public let leeway: TimeInterval
    /// The key ids it knows.
    public var keyIDs: Set<String> { Set(collections.keys) }
    /// One collection per key id, each holding only that key: jwt-kit never picks another.
    private let collections: [String: JWTKeyCollection]
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - keys: The private API keys tokens may be signed with (distinct ids).
    ///   - leeway: The clock leeway for `exp` and `nbf`, 0…60 s (default 30).
    ///   - now: The clock; injectable for tests.
    /// - Throws: ``CustomerTokenError/invalidConfiguration(reason:)`` without keys, with two keys
    ///   of the same id, or with a leeway outside 0…60 s.
    public init(keys: [CustomerTokenKey], leeway: TimeInterval = 30, now: @escaping @Sendable () -> Date = { Date() }) async throws(CustomerTokenError) {
        guard !keys.isEmpty else { throw .invalidConfiguration(reason: "a verifier needs at least one key") }
        guard leeway.isFinite, leeway >= 0, leeway <= Self.maximumLeeway else {
            throw .invalidConfiguration(reason: "the clock leeway must be between 0 and \(Int(Self.maximumLeeway)) seconds")
        }
        var collections: [String: JWTKeyCollection] = [:]
        for key in keys {
            guard collections[key.id] == nil else { throw .invalidConfiguration(reason: "two keys share the id '\(key.id)'") }
            let collection = JWTKeyCollection()
            await collection.add(hmac: HMACKey(key: key.secret), digestAlgorithm: .sha256)
            collections[key.id] = collection
        }
        self.collections = collections
        self.leeway = leeway
        self.now = now
    }

    /// The customer a valid token names.
    public func verify(_ token: String) async throws(CustomerTokenError) -> VerifiedCustomerToken {
        let (keyID, collection) = try checkHeader(of: token)
        let payload: CustomerTokenPayload
        do {
            payload = try await collection.verify(token, as: CustomerTokenPayload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .invalidSignature
        } catch {
            throw .invalidClaims(reason: "sub must be an object of string ids; exp and nbf numbers")
        }
        let moment = now()
        if let expiry = payload.exp?.value, moment >= expiry.addingTimeInterval(leeway) { throw .expired(at: expiry) }
        if let notBefore = payload.nbf?.value, moment < notBefore.addingTimeInterval(-leeway) { throw .notYetValid(until: notBefore) }
        guard !payload.sub.isEmpty else { throw .invalidClaims(reason: "sub names no customer id") }
        return VerifiedCustomerToken(keyID: keyID, customerIDs: payload.sub, expiresAt: payload.exp?.value)
    }

    /// Everything decided from the header, before any cryptography: the shape, the algorithm, the key.
    private func checkHeader(of token: String) throws(CustomerTokenError) -> (String, JWTKeyCollection) {
        let jwt: CompactJWT
        do {
            jwt = try CompactJWT(token)
        } catch {
            throw .malformed(reason: error.description)
        }
        guard let algorithm = jwt.algorithm else { throw .malformed(reason: "the header has no alg") }
        guard algorithm.lowercased() != "none" else { throw .algorithmNone }
        guard algorithm == "HS256" else { throw .unsupportedAlgorithm }
        guard jwt.header["crit"] == nil else {
            throw .malformed(reason: "the header lists critical extensions (crit), which this verifier does not support")
        }
        guard let keyID = jwt.keyID, !keyID.isEmpty else { throw .missingKeyID }
        guard let collection = collections[keyID] else { throw .unknownKeyID }
        return (keyID, collection)
    }
}
