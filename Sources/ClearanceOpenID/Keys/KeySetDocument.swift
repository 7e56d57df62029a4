import ClearanceWire
import Foundation

/// A provider's key set (RFC 7517 JWK Set) as Clearance uses it: the keys that can verify
/// signatures, and the document as published (stored with the session).
struct KeySetDocument: Sendable {
    /// The usable keys, in the document's order.
    let keys: [ProviderKey]
    /// The document as published.
    let document: [String: JSONValue]

    /// How a token's `alg` and `kid` pick a key.
    enum Choice: Sendable {
        case key(ProviderKey)
        /// No key has the `kid` (or, without a `kid`, none fits): the set may be out of date.
        case unknown
        /// The `kid` names a key of the set whose type, curve or own `alg` does not fit the
        /// token's algorithm (an RSA key named for ES256, an RS256 key for PS256).
        case mismatched
        /// No `kid`, and this many keys fit: the key cannot be chosen.
        case ambiguous(Int)
    }

    /// - Throws: ``OpenIDError/keySetUnavailable(reason:underlying:)`` when the document has no `keys` array.
    init(document: [String: JSONValue]) throws(OpenIDError) {
        guard let members = document["keys"]?.arrayValue else {
            throw .keySetUnavailable(reason: "the key set document has no keys array", underlying: nil)
        }
        self.keys = members.compactMap(ProviderKey.init)
        self.document = document
    }

    /// The key for a token signed with `algorithm` and naming `keyID` (Core §10.1: without a
    /// `kid`, only when exactly one key fits).
    func choose(algorithm: String, keyID: String?) -> Choice {
        let fitting = keys.filter { $0.fits(algorithm) }
        if let keyID {
            if let key = fitting.first(where: { $0.keyID == keyID }) { return .key(key) }
            return keys.contains { $0.keyID == keyID } ? .mismatched : .unknown
        }
        switch fitting.count {
        case 0: return .unknown
        case 1: return .key(fitting[0])
        default: return .ambiguous(fitting.count)
        }
    }
}
