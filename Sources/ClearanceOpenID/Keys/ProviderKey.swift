import ClearanceWire
import Foundation
import JWTKit

/// One key of a provider's key set that can verify signatures: a JWK jwt-kit reads (RSA, EC
/// P-256/384/521, OKP Ed25519), not marked for encryption only.
struct ProviderKey: Sendable {
    /// The key as jwt-kit reads it.
    let jwk: JWK
    /// `kid`, when the key has one.
    let keyID: String?
    /// `kty`: `RSA`, `EC` or `OKP`.
    let keyType: String
    /// `alg`, when the key is restricted to one algorithm.
    let algorithm: String?
    /// `crv`, for EC and OKP keys.
    let curve: String?

    /// The key in `member`, or nil when it cannot verify signatures: another `use` than `sig`,
    /// `key_ops` without `verify`, a key type or curve jwt-kit does not read, or a JWK that does
    /// not decode.
    init?(_ member: JSONValue) {
        guard let object = member.objectValue, let keyType = object["kty"]?.stringValue else { return nil }
        if let use = object["use"], use.stringValue != "sig" { return nil }
        if let operations = object["key_ops"], !(operations.arrayValue ?? []).contains(.string("verify")) { return nil }
        guard ["RSA", "EC", "OKP"].contains(keyType) else { return nil }
        // jwt-kit's JWK refuses unknown `alg` values when decoding: keep the ones it knows, and
        // leave out the others (such a key then fits no algorithm Clearance verifies).
        let algorithm = object["alg"]?.stringValue
        if let algorithm, JWK.Algorithm(rawValue: algorithm) == nil { return nil }
        guard let jwk = try? JSONDecoder().decode(JWK.self, from: Data(member.jsonText.utf8)) else { return nil }
        self.jwk = jwk
        self.keyID = object["kid"]?.stringValue
        self.keyType = keyType
        self.algorithm = algorithm
        self.curve = object["crv"]?.stringValue
    }

    /// Whether the key can verify a signature made with `algorithm`: its type (and curve) is the
    /// algorithm's, and its own `alg`, if any, is the same.
    func fits(_ algorithm: String) -> Bool {
        if let own = self.algorithm, own != algorithm { return false }
        switch algorithm {
        case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512": return keyType == "RSA"
        case "ES256": return keyType == "EC" && curve == "P-256"
        case "ES384": return keyType == "EC" && curve == "P-384"
        case "ES512": return keyType == "EC" && curve == "P-521"
        case "EdDSA": return keyType == "OKP" && curve == "Ed25519"
        default: return false
        }
    }

    /// The algorithms Clearance verifies ID token signatures with, through jwt-kit.
    static let asymmetricAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    /// jwt-kit's signer for this key and `algorithm`, in a collection of its own: whatever `kid`
    /// the token names, this key and only this key verifies it.
    func keyCollection(for algorithm: String) async throws -> JWTKeyCollection {
        var key = jwk
        key.algorithm = JWK.Algorithm(rawValue: algorithm)
        key.keyIdentifier = JWKIdentifier(string: keyID ?? "clearance-selected-key")
        let collection = JWTKeyCollection()
        try await collection.add(jwk: key, isDefault: true)
        return collection
    }
}
