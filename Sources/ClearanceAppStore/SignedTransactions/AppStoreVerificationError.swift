import Clearance

/// Why an App Store signed transaction was refused. Stable qualified codes `appstore.<code>`.
public enum AppStoreVerificationError: ClearanceError {
    /// Not a JWS, or a payload that is not a signed transaction.
    case malformed(reason: String)
    /// The header's `alg` is not `ES256`.
    case unsupportedAlgorithm(String?)
    /// The `x5c` chain does not have exactly three certificates.
    case chainLength(Int)
    /// The chain does not lead to a trusted root under Apple's rules (markers, validity, signatures).
    case untrustedChain(reason: String)
    /// The signature does not verify with the leaf certificate's key.
    case invalidSignature
    /// The transaction is for another app.
    case wrongBundleID(String)
    /// The transaction is from another environment.
    case wrongEnvironment(String)

    public enum Code: String, Sendable, CaseIterable {
        case malformed, unsupportedAlgorithm, chainLength, untrustedChain, invalidSignature, wrongBundleID, wrongEnvironment
    }

    public static let codeDomain = "appstore"

    public var code: Code {
        switch self {
        case .malformed: .malformed
        case .unsupportedAlgorithm: .unsupportedAlgorithm
        case .chainLength: .chainLength
        case .untrustedChain: .untrustedChain
        case .invalidSignature: .invalidSignature
        case .wrongBundleID: .wrongBundleID
        case .wrongEnvironment: .wrongEnvironment
        }
    }

    public var message: String {
        switch self {
        case .malformed(let reason): "The signed transaction is malformed: \(Redactor.scrub(reason))."
        case .unsupportedAlgorithm(let alg): "The signed transaction uses \(alg ?? "no algorithm"); App Store transactions are ES256."
        case .chainLength(let count): "The signed transaction's x5c chain has \(count) certificate\(count == 1 ? "" : "s"); App Store chains have three."
        case .untrustedChain(let reason): "The signed transaction's certificate chain is not trusted: \(Redactor.scrub(reason))."
        case .invalidSignature: "The signed transaction's signature does not verify."
        case .wrongBundleID(let id): "The signed transaction is for another app (\(id))."
        case .wrongEnvironment(let environment): "The signed transaction comes from another environment (\(environment))."
        }
    }
}
