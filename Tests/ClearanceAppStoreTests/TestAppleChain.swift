import Crypto
import Foundation
import JWTKit
import SwiftASN1
import X509

/// A certificate chain shaped like Apple's App Store chain (root → intermediate with the WWDR
/// marker → leaf with the App Store marker), made by the test, and a signer of transactions
/// with it. Options break one rule at a time.
struct TestAppleChain {
    struct Options {
        var leafMarker = true
        var intermediateMarker = true
        var leafValidity: (notBefore: TimeInterval, notAfter: TimeInterval) = (-86_400 * 90, 86_400 * 365)
    }

    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let leafKey: P256.Signing.PrivateKey

    init(_ options: Options = Options(), now: Date = Date()) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Test Apple Root CA - G3") }
        let intermediateName = try DistinguishedName { CommonName("Test Apple Worldwide Developer Relations CA - G6") }
        let leafName = try DistinguishedName { CommonName("Test Prod ECC Mac App Store and iTunes Store Receipt Signing") }

        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: now.addingTimeInterval(-86_400 * 200), notValidAfter: now.addingTimeInterval(86_400 * 3650),
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            },
            issuerPrivateKey: .init(rootKey))
        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            KeyUsage(keyCertSign: true)
        }
        if options.intermediateMarker {
            try intermediateExtensions.append(Certificate.Extension(oid: Self.intermediateOID, critical: false, value: [0x05, 0x00]))
        }
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: now.addingTimeInterval(-86_400 * 100), notValidAfter: now.addingTimeInterval(86_400 * 1000),
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions, issuerPrivateKey: .init(rootKey))
        var leafExtensions = try Certificate.Extensions {
            KeyUsage(digitalSignature: true)
        }
        if options.leafMarker {
            try leafExtensions.append(Certificate.Extension(oid: Self.leafOID, critical: false, value: [0x05, 0x00]))
        }
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(options.leafValidity.notBefore), notValidAfter: now.addingTimeInterval(options.leafValidity.notAfter),
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: leafExtensions, issuerPrivateKey: .init(intermediateKey))
    }

    /// The root's DER bytes (what an app passes as its trusted root).
    var rootDER: Data { get throws { try Self.der(root) } }

    static func der(_ certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    /// `x5c`: base64 DER, leaf first.
    func x5c(_ certificates: [Certificate]? = nil) throws -> [String] {
        try (certificates ?? [leaf, intermediate, root]).map { try Self.der($0).base64EncodedString() }
    }

    /// A JWS of `payload` signed (ES256, as Apple signs) with the leaf's key and carrying `x5c`:
    /// written here from RFC 7515, independent of the library under test.
    func sign(_ payload: TransactionClaims, x5c: [String]? = nil, alg: String = "ES256") throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "x5c": try x5c ?? self.x5c()], options: [.sortedKeys])
        let body = try JSONEncoder().encode(payload)
        let input = Self.base64URL(header) + "." + Self.base64URL(body)
        let signature = try leafKey.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Self.base64URL(signature)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: String) -> Data? {
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return Data(base64Encoded: standard + String(repeating: "=", count: (4 - standard.count % 4) % 4))
    }
}

/// The payload Apple signs, as a test writes it (dates in milliseconds).
struct TransactionClaims: JWTPayload {
    var transactionId = "2000000123"
    var originalTransactionId = "2000000100"
    var bundleId = "com.example.reader"
    var productId = "com.example.reader.monthly"
    var purchaseDate: Int64
    var expiresDate: Int64?
    var revocationDate: Int64?
    var signedDate: Int64
    var environment = "Sandbox"
    var type = "Auto-Renewable Subscription"

    init(now: Date = Date(), productId: String = "com.example.reader.monthly", originalTransactionId: String = "2000000100", expires: TimeInterval? = 30 * 86_400) {
        let ms = Int64(now.timeIntervalSince1970 * 1000)
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.transactionId = "\(originalTransactionId)-\(ms)"
        purchaseDate = ms
        signedDate = ms
        expiresDate = expires.map { ms + Int64($0 * 1000) }
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
