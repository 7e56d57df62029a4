import ClearanceWire
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
    /// RSA 2048 for RSASSA-PSS, `kid` `ps-1` (PS256).
    case pss = "ps-1"
    /// EC P-384, `kid` `ec-384` (ES384).
    case ec384 = "ec-384"
    /// EC P-521, `kid` `ec-521` (ES512).
    case ec521 = "ec-521"
    /// Ed25519, `kid` `ed-1` (EdDSA).
    case ed25519 = "ed-1"

    /// The algorithm the key signs with.
    package var algorithm: String {
        switch self {
        case .rsa, .rotatedRSA: "RS256"
        case .ec: "ES256"
        case .pss: "PS256"
        case .ec384: "ES384"
        case .ec521: "ES512"
        case .ed25519: "EdDSA"
        }
    }
}

/// The hostile provider's keys, once per test process: the RSA keys are fixed test keys read from
/// `Fixtures/openid-*.pem` (swift-crypto's RSA key generation leaks the exponent's BIGNUM words,
/// which LeakSanitizer reports, and takes seconds under a sanitizer); the others are made here.
package struct TestSigningKeys: Sendable {
    package static let shared = TestSigningKeys()

    let rsa: JWTKit.Insecure.RSA.PrivateKey
    let rotatedRSA: JWTKit.Insecure.RSA.PrivateKey
    let pss: JWTKit.Insecure.RSA.PrivateKey
    let ec: ES256PrivateKey
    let ec384: ES384PrivateKey
    let ec521: ES512PrivateKey
    let ed25519: EdDSA.PrivateKey

    private init() {
        func rsaKey(_ name: String) -> JWTKit.Insecure.RSA.PrivateKey {
            // 2048 bits: jwt-kit refuses smaller RSA keys.
            try! JWTKit.Insecure.RSA.PrivateKey(pem: String(decoding: Fixture.data("openid-\(name).pem"), as: UTF8.self))
        }
        rsa = rsaKey("rsa-1")
        rotatedRSA = rsaKey("rsa-2")
        pss = rsaKey("ps-1")
        ec = ES256PrivateKey()
        ec384 = ES384PrivateKey()
        ec521 = ES512PrivateKey()
        ed25519 = try! EdDSA.PrivateKey(curve: .ed25519)
    }

    /// The public JWK of `key`, with its own `kid`, another one, or none.
    package func publicJWK(_ key: TestKey, includesKeyID: Bool = true, keyID: String? = nil) -> [String: JSONValue] {
        func rsaJWK(_ key: JWTKit.Insecure.RSA.PrivateKey) -> [String: JSONValue] {
            let (modulus, exponent) = try! key.publicKey.getKeyPrimitives()
            return ["kty": .string("RSA"), "n": .string(Base64URL.encode(modulus)), "e": .string(Base64URL.encode(exponent))]
        }
        func ecJWK(_ parameters: ECDSAParameters?, curve: String) -> [String: JSONValue] {
            ["kty": .string("EC"), "crv": .string(curve), "x": .string(parameters!.x), "y": .string(parameters!.y)]
        }
        var jwk: [String: JSONValue]
        switch key {
        case .rsa: jwk = rsaJWK(rsa)
        case .rotatedRSA: jwk = rsaJWK(rotatedRSA)
        case .pss: jwk = rsaJWK(pss)
        case .ec: jwk = ecJWK(ec.parameters, curve: "P-256")
        case .ec384: jwk = ecJWK(ec384.parameters, curve: "P-384")
        case .ec521: jwk = ecJWK(ec521.parameters, curve: "P-521")
        case .ed25519:
            jwk = ["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(Base64URL.encode(ed25519.publicKey.rawRepresentation))]
        }
        jwk["alg"] = .string(key.algorithm)
        jwk["use"] = .string("sig")
        if includesKeyID { jwk["kid"] = .string(keyID ?? key.rawValue) }
        return jwk
    }

    /// The PEM of `key`'s public key (the classic HS256 forgery uses it as the HMAC secret).
    package func publicKeyPEM(_ key: TestKey) -> String {
        switch key {
        case .rsa: rsa.publicKey.pemRepresentation
        case .rotatedRSA: rotatedRSA.publicKey.pemRepresentation
        case .pss: pss.publicKey.pemRepresentation
        case .ec: ec.publicKey.pemRepresentation
        case .ec384: ec384.publicKey.pemRepresentation
        case .ec521: ec521.publicKey.pemRepresentation
        case .ed25519: ed25519.publicKey.pemRepresentation
        }
    }

    /// A signature over `input` with `key` by its algorithm, or `algorithm` when given (an RSA key
    /// signing PS256, say), by jwt-kit.
    package func sign(_ input: Data, with key: TestKey, algorithm: String? = nil) async throws -> [UInt8] {
        let keys = JWTKeyCollection()
        let pssPadding = (algorithm ?? key.algorithm) == "PS256"
        switch key {
        case .rsa, .rotatedRSA, .pss:
            let rsaKey = key == .rsa ? rsa : key == .rotatedRSA ? rotatedRSA : pss
            if pssPadding { await keys.add(pss: rsaKey, digestAlgorithm: .sha256) } else { await keys.add(rsa: rsaKey, digestAlgorithm: .sha256) }
        case .ec: await keys.add(ecdsa: ec)
        case .ec384: await keys.add(ecdsa: ec384)
        case .ec521: await keys.add(ecdsa: ec521)
        case .ed25519: await keys.add(eddsa: ed25519)
        }
        return try await keys.getKey().sign(input)
    }
}
