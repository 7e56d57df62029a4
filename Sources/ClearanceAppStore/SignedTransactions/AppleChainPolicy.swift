import SwiftASN1
import X509

/// Apple's rules for the `x5c` chain of an App Store signed transaction, on top of RFC 5280:
/// exactly three certificates (leaf, intermediate, root), the leaf carrying Apple's
/// receipt-signing marker extension (OID 1.2.840.113635.100.6.11.1) and the intermediate
/// Apple's WWDR intermediate marker (OID 1.2.840.113635.100.6.2.1).
struct AppleChainPolicy: VerifierPolicy {
    /// The marker of Apple's App Store signing leaf certificates.
    static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    /// The marker of Apple's WWDR intermediate certificates.
    static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "an App Store chain has three certificates, this one \(chain.count)")
        }
        guard chain[0].extensions[oid: Self.leafMarker] != nil else {
            return .failsToMeetPolicy(reason: "the leaf certificate lacks Apple's App Store signing marker")
        }
        guard chain[1].extensions[oid: Self.intermediateMarker] != nil else {
            return .failsToMeetPolicy(reason: "the intermediate certificate lacks Apple's WWDR intermediate marker")
        }
        return .meetsPolicy
    }
}
