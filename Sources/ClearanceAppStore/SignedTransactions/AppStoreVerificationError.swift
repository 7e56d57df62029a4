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

    public static let codeDomain = "appstore"

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .malformed(let reason): .init(.malformed, "The signed transaction is malformed: \(Redactor.scrub(reason)).")
        case .unsupportedAlgorithm(let alg): .init(.unsupportedAlgorithm, "The signed transaction uses \(alg ?? "no algorithm"); App Store transactions are ES256.")
        case .chainLength(let count): .init(.chainLength, "The signed transaction's x5c chain has \(count) certificate\(count == 1 ? "" : "s"); App Store chains have three.")
        case .untrustedChain(let reason): .init(.untrustedChain, "The signed transaction's certificate chain is not trusted: \(Redactor.scrub(reason)).")
        case .invalidSignature: .init(.invalidSignature, "The signed transaction's signature does not verify.")
        case .wrongBundleID(let id): .init(.wrongBundleID, "The signed transaction is for another app (\(id)).")
        case .wrongEnvironment(let environment): .init(.wrongEnvironment, "The signed transaction comes from another environment (\(environment)).")
        }
    }

    public enum Code: String, Sendable, CaseIterable {
        case malformed, unsupportedAlgorithm, chainLength, untrustedChain, invalidSignature, wrongBundleID, wrongEnvironment
    }
}
