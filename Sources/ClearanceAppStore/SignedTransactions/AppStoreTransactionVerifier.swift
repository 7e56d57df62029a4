import Foundation
import JWTKit
import X509

/// Verifies App Store signed transactions (the JWS StoreKit 2 hands over as
/// `jwsRepresentation`, and the App Store Server API returns) on any platform, Linux included:
/// jwt-kit's `X5CVerifier` with Apple's rules.
///
/// - The header's `alg` is `ES256` and its `x5c` chain has exactly three certificates.
/// - The chain leads to one of the trusted roots (Apple Root CA - G3 in production: pass its
///   DER bytes, from Apple's PKI page) under RFC 5280, validated at the transaction's
///   `signedDate` as Apple's own library does; the leaf carries Apple's App Store marker
///   (1.2.840.113635.100.6.11.1) and the intermediate Apple's WWDR marker (1.2.840.113635.100.6.2.1).
/// - The signature verifies with the leaf's key.
/// - The bundle id and the environment are the app's.
public struct AppStoreTransactionVerifier: Sendable {
    /// The app's bundle id.
    public let bundleID: String
    /// The environment accepted.
    public let environment: AppStoreEnvironment
    private let verifier: X5CVerifier

    /// A verifier trusting `rootCertificates` (DER) for transactions of `bundleID` in `environment`.
    /// - Throws: ``AppStoreVerificationError/untrustedChain(reason:)`` for no root or a root that is not a certificate.
    public init(rootCertificates: [Data], bundleID: String, environment: AppStoreEnvironment) throws(AppStoreVerificationError) {
        do {
            try self.init(rootCertificates: rootCertificates.map { try Certificate(derEncoded: Array($0)) }, bundleID: bundleID, environment: environment)
        } catch let error as AppStoreVerificationError {
            throw error
        } catch {
            throw .untrustedChain(reason: "a root certificate cannot be read (\(error))")
        }
    }

    /// A verifier trusting `rootCertificates`.
    public init(rootCertificates: [Certificate], bundleID: String, environment: AppStoreEnvironment) throws(AppStoreVerificationError) {
        do {
            self.verifier = try X5CVerifier(rootCertificates: rootCertificates)
        } catch {
            throw .untrustedChain(reason: "no root certificate")
        }
        self.bundleID = bundleID
        self.environment = environment
    }

    /// The transaction `signedTransaction` holds, once every rule holds.
    public func verify(_ signedTransaction: String) async throws(AppStoreVerificationError) -> AppStoreTransaction {
        let token = Array(signedTransaction.utf8)
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse(token, as: SignedTransactionPayload.self).header
        } catch {
            throw .malformed(reason: String(describing: error))
        }
        guard header.alg == "ES256" else { throw .unsupportedAlgorithm(header.alg) }
        let chain = header.x5c ?? []
        guard chain.count == 3 else { throw .chainLength(chain.count) }
        let payload: SignedTransactionPayload
        do {
            payload = try await verifier.verifyJWS(token, as: SignedTransactionPayload.self, jsonDecoder: .defaultForJWT, validationTime: .signedDate) {
                AppleChainPolicy()
            }
        } catch let error as JWTError {
            switch error.errorType {
            case .signatureVerificationFailed: throw .invalidSignature
            case .invalidX5CChain, .missingX5CHeader: throw .untrustedChain(reason: error.reason ?? "\(error.errorType)")
            default: throw .malformed(reason: error.reason ?? "\(error.errorType)")
            }
        } catch {
            throw .untrustedChain(reason: String(describing: error))
        }
        guard payload.bundleId == bundleID else { throw .wrongBundleID(payload.bundleId) }
        guard payload.environment == environment.rawValue, let transaction = payload.transaction else { throw .wrongEnvironment(payload.environment) }
        return transaction
    }
}
