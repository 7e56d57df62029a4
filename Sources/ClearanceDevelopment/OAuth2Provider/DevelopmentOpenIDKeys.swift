import Foundation
import JWTKit

/// The key the ``DevelopmentOAuth2Provider`` signs ID tokens with: an ES256 key made when the
/// provider starts (never stored), published in its key set under a random `kid`.
struct DevelopmentOpenIDKeys: Sendable {
    let keyID: String
    let publicJWK: JWK
    let collection: JWTKeyCollection

    init() async {
        let key = ES256PrivateKey()
        let keyID = "clearance-dev-" + UUID().uuidString.prefix(8).lowercased()
        let parameters = key.parameters!
        self.keyID = keyID
        var jwk = JWK.ecdsa(.es256, identifier: JWKIdentifier(string: keyID), x: parameters.x, y: parameters.y, curve: .p256)
        jwk.privateExponent = nil
        self.publicJWK = jwk
        self.collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
    }

    /// The key set document: `{"keys": [{kty, crv, x, y, kid, alg, use: "sig"}]}`.
    var keySet: [String: Any] {
        var key: [String: Any] = ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": keyID]
        key["x"] = publicJWK.x
        key["y"] = publicJWK.y
        return ["keys": [key]]
    }

    func sign(_ claims: DevelopmentIDTokenClaims) async throws -> String {
        try await collection.sign(claims, kid: JWKIdentifier(string: keyID))
    }

    /// The claims of an ID token this provider signed (expired ones too).
    func verify(_ idToken: String) async throws -> DevelopmentIDTokenClaims {
        try await collection.verify(idToken, as: DevelopmentIDTokenClaims.self)
    }
}
