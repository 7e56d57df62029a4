import Clearance
import Foundation

/// Why a customer token was refused, or could not be minted or verified with the configuration
/// given. Every verification failure is answered with a 401 whose body carries the
/// ``qualifiedCode`` and the ``message``; neither ever contains the token (nor a secret).
public enum CustomerTokenError: ClearanceError, Equatable {
    /// The request carries no `Authorization: Bearer <jwt>`.
    case missingToken
    /// Not a compact JWT: not three base64url segments, a header or payload that is not a JSON
    /// object, longer than 8 KB, or a header this verifier does not support.
    case malformed(reason: String)
    /// An unsecured token (`alg: none`).
    case algorithmNone
    /// Signed with another algorithm than HS256 (HS384, RS256, …).
    case unsupportedAlgorithm
    /// The header names no key (`kid`).
    case missingKeyID
    /// The header's `kid` is not a key this verifier knows.
    case unknownKeyID
    /// The signature does not match the header and payload: tampered, or signed with another secret.
    case invalidSignature
    /// The signature is good but the claims are not a customer token's (`sub` must be a
    /// non-empty object of string ids; `exp` and `nbf` numbers).
    case invalidClaims(reason: String)
    /// The token expired (`exp`, with the verifier's leeway).
    case expired(at: Date)
    /// The token is not valid yet (`nbf`, with the verifier's leeway).
    case notYetValid(until: Date)
    /// A secret shorter than 32 bytes: HS256 needs at least as many bytes as its output.
    case weakSecret(byteCount: Int)
    /// A key id, customer ids, TTL or leeway that cannot work.
    case invalidConfiguration(reason: String)
    /// jwt-kit could not sign the token.
    case signingFailed(reason: String)

    public static let codeDomain = "customer_token"

    /// True for the failures a request's token causes (answered 401); false for configuration
    /// and signing errors.
    public var refusesToken: Bool {
        switch self {
        case .weakSecret, .invalidConfiguration, .signingFailed: false
        default: true
        }
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .missingToken: .init(.missingToken, "The request carries no customer token (Authorization: Bearer <JWT>).")
        case .malformed(let reason): .init(.malformed, "The customer token is malformed: \(Redactor.scrub(reason)).")
        case .algorithmNone: .init(.algorithmNone, "The customer token is unsigned (alg none); only HS256 is accepted.")
        case .unsupportedAlgorithm: .init(.unsupportedAlgorithm, "The customer token is signed with another algorithm than HS256, the only one accepted.")
        case .missingKeyID: .init(.missingKeyID, "The customer token's header names no key (kid).")
        case .unknownKeyID: .init(.unknownKeyID, "The customer token names a key (kid) this server does not know.")
        case .invalidSignature: .init(.invalidSignature, "The customer token's signature does not match its contents (tampered, or signed with another secret).")
        case .invalidClaims(let reason): .init(.invalidClaims, "The customer token's claims are not usable: \(Redactor.scrub(reason)).")
        case .expired(let date): .init(.expired, "The customer token expired at \(Self.timestamp(date)).")
        case .notYetValid(let date): .init(.notYetValid, "The customer token is not valid before \(Self.timestamp(date)).")
        case .weakSecret(let count): .init(.weakSecret, "The secret has \(count) byte\(count == 1 ? "" : "s"); HS256 needs at least \(CustomerTokenKey.minimumSecretLength).")
        case .invalidConfiguration(let reason): .init(.invalidConfiguration, "Customer tokens are misconfigured: \(Redactor.scrub(reason)).")
        case .signingFailed(let reason): .init(.signingFailed, "The customer token could not be signed: \(Redactor.scrub(reason)).")
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Stable codes; ``qualifiedCode`` is `customer_token.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case missingToken, malformed, algorithmNone, unsupportedAlgorithm, missingKeyID, unknownKeyID
        case invalidSignature, invalidClaims, expired, notYetValid, weakSecret, invalidConfiguration, signingFailed
    }
}
