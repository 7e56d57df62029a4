import Foundation
import NIOSSL
import X509

/// The hub's certificate and private key, as PEM files: with them the hub serves `wss://` and
/// `https://` on its one port (HummingbirdTLS's `TLSChannel`, swift-nio-ssl, in front of the
/// hub's own connection handling), and nothing in plain text.
///
/// `clearance serve` takes them from `--tls-certificate FILE --tls-key FILE` (or
/// `CLEARANCE_TLS_CERTIFICATE` and `CLEARANCE_TLS_KEY`); a configuration file may say
/// `"tls": {"certificate": "/etc/clearance/hub.pem", "key": "/etc/clearance/hub.key"}`.
///
/// The certificate file holds the server's certificate first, then any intermediates; the key
/// file an unencrypted private key (PKCS #8, SEC 1 EC or PKCS #1 RSA). Both are read when the hub
/// starts, and again on a reload (``HubReloader``, `clearance serve` on SIGHUP: new connections get
/// the new certificate, open ones keep theirs); ``validate()`` (which `clearance serve` runs before it listens) names the file that is
/// missing, unreadable or not PEM, and refuses a key that does not belong to the certificate.
public struct HubTLSConfiguration: Sendable, Hashable, Codable {
    /// The PEM file of the certificate chain, the server's certificate first.
    public var certificate: String
    /// The PEM file of the certificate's private key (unencrypted).
    public var key: String

    /// Creates a configuration from the paths of the certificate chain and of its key.
    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// Decodes `{"certificate": …, "key": …}`, both required.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for another
    ///   member, or a decoding error.
    public init(from decoder: any Decoder) throws {
        let members: [ConfigurationMember<Self>] = [.required("certificate", \.certificate), .required("key", \.key)]
        self = try ConfigurationMember.decode(members, from: decoder, startingFrom: Self(certificate: "", key: ""))
    }

    /// Reads both files and checks that they are usable together.
    /// - Throws: ``HubTLSError``, naming the file at fault.
    public func validate() throws(HubTLSError) {
        _ = try serverConfiguration()
    }

    /// The server side of swift-nio-ssl's configuration, from the files as they are now.
    /// - Throws: ``HubTLSError``, naming the file at fault.
    func serverConfiguration() throws(HubTLSError) -> TLSConfiguration {
        let (chain, privateKey) = try load()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .unusable(certificate: certificate, key: key, reason: String(describing: error))
        }
        return configuration
    }

    /// The chain and key as a handshake's override (``HubTLSIdentity``), from the files as they
    /// are now, checked as at start.
    /// - Throws: ``HubTLSError``, naming the file at fault.
    func identity() throws(HubTLSError) -> NIOSSLContextConfigurationOverride {
        Self.identity(of: try serverConfiguration())
    }

    /// The chain and key `server` presents, as a handshake's override.
    static func identity(of server: TLSConfiguration) -> NIOSSLContextConfigurationOverride {
        var identity = NIOSSLContextConfigurationOverride()
        identity.certificateChain = server.certificateChain
        identity.privateKey = server.privateKey
        return identity
    }

    /// The certificate chain and its private key, read and checked to belong together.
    private func load() throws(HubTLSError) -> ([NIOSSLCertificate], NIOSSLPrivateKey) {
        let chainPEM = try Self.read(certificate, role: .certificate)
        let keyPEM = try Self.read(key, role: .key)
        let chain: [NIOSSLCertificate]
        let leaf: Certificate
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
            guard let first = chain.first else { throw HubTLSError.notPEM(path: certificate, role: .certificate) }
            leaf = try Certificate(derEncoded: try first.toDERBytes())
        } catch {
            throw .notPEM(path: certificate, role: .certificate)
        }
        let privateKey: NIOSSLPrivateKey
        let publicKey: Certificate.PublicKey
        do {
            privateKey = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            publicKey = try Certificate.PrivateKey(pemEncoded: keyPEM).publicKey
        } catch {
            throw .notPEM(path: key, role: .key)
        }
        guard publicKey == leaf.publicKey else { throw .keyMismatch(certificate: certificate, key: key) }
        return (chain, privateKey)
    }

    /// The text of the file at `path` (at most 1 MiB: a certificate chain is a few KiB).
    private static func read(_ path: String, role: HubTLSError.Role) throws(HubTLSError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadableFile(path: path, role: role)
        }
        guard data.count <= 1 << 20, let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") else {
            throw .notPEM(path: path, role: role)
        }
        return text
    }
}
