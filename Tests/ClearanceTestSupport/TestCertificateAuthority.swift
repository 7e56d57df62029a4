import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made for one test, and a server certificate it signed for
/// `127.0.0.1` and `localhost`, written as PEM files in a new temporary directory: the CA for
/// clients to trust (`REQUESTS_CA_BUNDLE`, a client's trust roots), the chain and key for
/// `clearance serve --tls-certificate --tls-key`.
package struct TestCertificateAuthority: Sendable {
    /// The directory holding the files (``remove()`` deletes it).
    package let directory: URL
    /// The CA's certificate (PEM): what clients trust.
    package var caFile: URL { directory.appendingPathComponent("ca.pem") }
    /// The server's certificate (PEM).
    package var certificateFile: URL { directory.appendingPathComponent("server.pem") }
    /// The server's private key (PEM, PKCS #8).
    package var keyFile: URL { directory.appendingPathComponent("server.key") }
    /// Another key, which does not belong to the certificate (PEM).
    package var otherKeyFile: URL { directory.appendingPathComponent("other.key") }
    /// The CA's certificate, PEM text.
    package let caPEM: String

    /// Makes the CA and the server certificate (ECDSA P-256, valid from an hour ago for a day).
    package init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Clearance test CA") }
        let caKeyID = SubjectKeyIdentifier(hash: Certificate.PublicKey(caKey.publicKey))
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3_600, notValidAfter: now + 86_400, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                caKeyID
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3_600, notValidAfter: now + 86_400, issuer: caName,
            subject: try DistinguishedName { CommonName("127.0.0.1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost")])
                AuthorityKeyIdentifier(keyIdentifier: caKeyID.keyIdentifier)
                SubjectKeyIdentifier(hash: Certificate.PublicKey(serverKey.publicKey))
            },
            issuerPrivateKey: .init(caKey))
        caPEM = try ca.serializeAsPEM().pemString
        try Data(caPEM.utf8).write(to: directory.appendingPathComponent("ca.pem"))
        try Data(try server.serializeAsPEM().pemString.utf8).write(to: directory.appendingPathComponent("server.pem"))
        try Data(serverKey.pemRepresentation.utf8).write(to: directory.appendingPathComponent("server.key"))
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: directory.appendingPathComponent("other.key"))
    }

    /// Deletes the files.
    package func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
