import ClearanceWire
import CryptoExtras
import Foundation
import JWTKit

/// A key the hostile provider signs with.
package enum TestKey: String, Sendable, CaseIterable {
    /// RSA 2048, `kid` `rsa-1` (RS256).
    case rsa = "rsa-1"
    /// Another RSA 2048 key, `kid` `rsa-2`: the provider's next key after a rotation.
    case rotatedRSA = "rsa-2"
    /// EC P-256, `kid` `ec-1` (ES256).
    case ec = "ec-1"

    /// The algorithm the key signs with.
    package var algorithm: String { self == .ec ? "ES256" : "RS256" }
}

/// The hostile provider's keys, made once per test process (RSA generation is slow).
package struct TestSigningKeys: Sendable {
    package static let shared = TestSigningKeys()

    let rsa: JWTKit.Insecure.RSA.PrivateKey
    let rotatedRSA: JWTKit.Insecure.RSA.PrivateKey
    let ec: ES256PrivateKey

    private init() {
        func rsaKey() -> JWTKit.Insecure.RSA.PrivateKey {
            // 2048 bits: jwt-kit refuses smaller RSA keys.
            try! JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
        rsa = rsaKey()
        rotatedRSA = rsaKey()
        ec = ES256PrivateKey()
    }

    /// The public JWK of `key`, with its own `kid`, another one, or none.
    package func publicJWK(_ key: TestKey, includesKeyID: Bool = true, keyID: String? = nil) -> [String: JSONValue] {
        var jwk: [String: JSONValue]
        switch key {
        case .rsa, .rotatedRSA:
            let (modulus, exponent) = try! (key == .rsa ? rsa : rotatedRSA).publicKey.getKeyPrimitives()
            jwk = ["kty": .string("RSA"), "n": .string(Base64URL.encode(modulus)), "e": .string(Base64URL.encode(exponent)), "alg": .string("RS256")]
        case .ec:
            let parameters = ec.parameters!
            jwk = ["kty": .string("EC"), "crv": .string("P-256"), "x": .string(parameters.x), "y": .string(parameters.y), "alg": .string("ES256")]
        }
        jwk["use"] = .string("sig")
        if includesKeyID { jwk["kid"] = .string(keyID ?? key.rawValue) }
        return jwk
    }

    /// The PEM of `key`'s public key (the classic HS256 forgery uses it as the HMAC secret).
    package func publicKeyPEM(_ key: TestKey) -> String {
        switch key {
        case .rsa: rsa.publicKey.pemRepresentation
        case .rotatedRSA: rotatedRSA.publicKey.pemRepresentation
        case .ec: ec.publicKey.pemRepresentation
        }
    }

    /// A signature over `input` with `key`, by jwt-kit.
    package func sign(_ input: Data, with key: TestKey) async throws -> [UInt8] {
        let keys = JWTKeyCollection()
        switch key {
        case .rsa: await keys.add(rsa: rsa, digestAlgorithm: .sha256)
        case .rotatedRSA: await keys.add(rsa: rotatedRSA, digestAlgorithm: .sha256)
        case .ec: await keys.add(ecdsa: ec)
        }
        return try await keys.getKey().sign(input)
    }
}
