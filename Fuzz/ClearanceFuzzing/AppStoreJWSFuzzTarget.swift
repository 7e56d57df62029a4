import ClearanceAppStore
import ClearanceWire
import Crypto
import Foundation
import X509

extension FuzzTarget {
    /// App Store signed transactions (`AppStoreTransactionVerifier.verify`): the JWS header, its
    /// `x5c` chain and the payload are read before any signature is checked. An even selector:
    /// the rest is a signed transaction as received; an odd one: the rest is a payload, wrapped
    /// in an ES256 header with a three-certificate `x5c`, so the payload decoding is reached.
    ///
    /// Invariant: nothing the fuzzer makes verifies (it holds no key the root trusts).
    static let appStoreJWS = FuzzTarget(name: "app-store-jws", summary: "AppStoreTransactionVerifier.verify (jwt-kit parser, x5c, payload)") { data throws(FuzzViolation) in
        let input = FuzzInput(data)
        let token = input.selector & 1 == 0 ? input.text : AppStoreFuzzing.wrap(payload: input.payload)
        guard let verifier = AppStoreFuzzing.verifier else { throw FuzzViolation(description: "no verifier") }
        let accepted = runBlocking { () async -> Bool in (try? await verifier.verify(token)) != nil }
        try FuzzViolation.require(!accepted, "an untrusted transaction verified")
    }
}

enum AppStoreFuzzing {
    static let verifier: AppStoreTransactionVerifier? = {
        let key = P256.Signing.PrivateKey()
        guard let name = try? DistinguishedName(builder: { CommonName("Clearance fuzz root") }),
              let root = try? Certificate(
                  version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                  notValidBefore: Date(timeIntervalSince1970: 1_600_000_000), notValidAfter: Date(timeIntervalSince1970: 2_000_000_000),
                  issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                  extensions: Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
                  issuerPrivateKey: .init(key))
        else { return nil }
        return try? AppStoreTransactionVerifier(rootCertificates: [root], bundleID: "com.example.fuzz", environment: .sandbox)
    }()

    /// A three-certificate chain of garbage (base64 of short DER-looking bytes) around `payload`.
    static func wrap(payload: Data) -> String {
        let certificate = Data([0x30, 0x03, 0x02, 0x01, 0x01]).base64EncodedString()
        let header = #"{"alg":"ES256","x5c":["\#(certificate)","\#(certificate)","\#(certificate)"]}"#
        return Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload) + "." + Base64URL.encode(Data(repeating: 1, count: 64))
    }
}
