import Clearance

/// Why the hub's certificate or key cannot be used. Messages name the file, never its contents.
public enum HubTLSError: ClearanceError, Equatable {
    /// Which of the two files.
    public enum Role: String, Sendable, Hashable {
        /// The certificate chain (`--tls-certificate`).
        case certificate
        /// The private key (`--tls-key`).
        case key
    }

    /// The file does not exist or cannot be read.
    case unreadableFile(path: String, role: Role)
    /// The file is not a PEM certificate chain, or not an unencrypted PEM private key.
    case notPEM(path: String, role: Role)
    /// The key is not the private key of the chain's first certificate.
    case keyMismatch(certificate: String, key: String)
    /// swift-nio-ssl refused the pair (an unsupported key type, say).
    case unusable(certificate: String, key: String, reason: String)

    public static let codeDomain = "hub.tls"

    /// Each case's code and message (paths only: never a key's bytes).
    public var summary: ErrorSummary<Code> {
        switch self {
        case let .unreadableFile(path, role):
            .init(.unreadableFile, "Cannot read the TLS \(role.rawValue) file \(path).")
        case let .notPEM(path, .certificate):
            .init(.notPEM, "The TLS certificate file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----, the server's first).")
        case let .notPEM(path, .key):
            .init(.notPEM, "The TLS key file \(path) holds no usable PEM private key (unencrypted PKCS #8, EC or RSA).")
        case let .keyMismatch(certificate, key):
            .init(.keyMismatch, "The TLS key \(key) is not the private key of the certificate \(certificate).")
        case let .unusable(certificate, key, reason):
            .init(.unusable, "The TLS certificate \(certificate) and key \(key) cannot be used: \(reason).")
        }
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `hub.tls.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case unreadableFile, notPEM, keyMismatch, unusable
    }
}
