import ClearanceAppStore
import Foundation
import JWTKit
import Testing
import X509

/// App Store signed transactions verified on Linux against chains the tests make: every one of
/// Apple's rules refuses what breaks it.
@Suite struct AppStoreTransactionVerifierTests {
    func verifier(_ chain: TestAppleChain, bundleID: String = "com.example.reader", environment: AppStoreEnvironment = .sandbox) throws -> AppStoreTransactionVerifier {
        try AppStoreTransactionVerifier(rootCertificates: [try chain.rootDER], bundleID: bundleID, environment: environment)
    }

    func expect(_ code: AppStoreVerificationError.Code, saying words: String? = nil, _ body: () async throws -> AppStoreTransaction, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let transaction = try await body()
            Issue.record("expected appstore.\(code.rawValue), got \(transaction)", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? AppStoreVerificationError)?.code == code, "\(error)", sourceLocation: sourceLocation)
            if let words { #expect("\(error)".contains(words), "\(error)", sourceLocation: sourceLocation) }
        }
    }

    @Test func aWellFormedTransactionVerifies() async throws {
        let chain = try TestAppleChain()
        let claims = TransactionClaims()
        let transaction = try await verifier(chain).verify(try chain.sign(claims))
        #expect(transaction.productID == "com.example.reader.monthly" && transaction.bundleID == "com.example.reader")
        #expect(transaction.environment == .sandbox && transaction.originalTransactionID == "2000000100")
        #expect(transaction.isActive(at: Date()) && !transaction.isActive(at: Date().addingTimeInterval(31 * 86_400)))
        #expect(abs(transaction.signedDate.timeIntervalSince1970 * 1000 - Double(claims.signedDate)) < 1)
    }

    @Test func anotherAppOrEnvironmentIsRefused() async throws {
        let chain = try TestAppleChain()
        let signed = try chain.sign(TransactionClaims())
        await expect(.wrongBundleID) { try await verifier(chain, bundleID: "com.example.other").verify(signed) }
        await expect(.wrongEnvironment) { try await verifier(chain, environment: .production).verify(signed) }
    }

    @Test func theMarkersAreRequired() async throws {
        let noLeafMarker = try TestAppleChain(.init(leafMarker: false))
        await expect(.untrustedChain, saying: "App Store signing marker") { try await verifier(noLeafMarker).verify(try noLeafMarker.sign(TransactionClaims())) }
        let noIntermediateMarker = try TestAppleChain(.init(intermediateMarker: false))
        await expect(.untrustedChain, saying: "WWDR intermediate marker") { try await verifier(noIntermediateMarker).verify(try noIntermediateMarker.sign(TransactionClaims())) }
    }

    @Test func anotherRootIsNotTrusted() async throws {
        let chain = try TestAppleChain()
        let stranger = try TestAppleChain()
        await expect(.untrustedChain) { try await verifier(stranger).verify(try chain.sign(TransactionClaims())) }
    }

    @Test func exactlyThreeCertificates() async throws {
        let chain = try TestAppleChain()
        await expect(.chainLength) { try await verifier(chain).verify(try chain.sign(TransactionClaims(), x5c: try chain.x5c([chain.leaf, chain.root]))) }
        await expect(.chainLength) { try await verifier(chain).verify(try chain.sign(TransactionClaims(), x5c: try chain.x5c([chain.leaf, chain.intermediate, chain.root, chain.root]))) }
    }

    @Test func aLeafExpiredWhenTheTransactionWasSignedIsRefused() async throws {
        let chain = try TestAppleChain(.init(leafValidity: (-86_400 * 3, -86_400)))
        await expect(.untrustedChain) { try await verifier(chain).verify(try chain.sign(TransactionClaims())) }
    }

    @Test func onlyES256() async throws {
        let chain = try TestAppleChain()
        await expect(.unsupportedAlgorithm) { try await verifier(chain).verify(try chain.sign(TransactionClaims(), alg: "RS256")) }
        await expect(.unsupportedAlgorithm) { try await verifier(chain).verify(try chain.sign(TransactionClaims(), alg: "ES384")) }
    }

    @Test func aTamperedPayloadDoesNotVerify() async throws {
        let chain = try TestAppleChain()
        let signed = try chain.sign(TransactionClaims())
        let parts = signed.split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(TestAppleChain.base64URLDecode(parts[1])), as: UTF8.self).replacingOccurrences(of: "reader.monthly", with: "reader.lifetime")
        await expect(.invalidSignature) { try await verifier(chain).verify([parts[0], TestAppleChain.base64URL(Data(payload.utf8)), parts[2]].joined(separator: ".")) }
    }

    @Test func garbageIsMalformed() async throws {
        let chain = try TestAppleChain()
        for text in ["", "a.b", "not.a.jws", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"] {
            do {
                _ = try await verifier(chain).verify(text)
                Issue.record("\(text) must be refused")
            } catch {
                let code = (error as? AppStoreVerificationError)?.code
                #expect(code == .malformed || code == .chainLength, "\(text): \(error)")
            }
        }
        #expect(throws: AppStoreVerificationError.self) { try AppStoreTransactionVerifier(rootCertificates: [Data("not a certificate".utf8)], bundleID: "b", environment: .sandbox) }
        #expect(throws: AppStoreVerificationError.self) { try AppStoreTransactionVerifier(rootCertificates: [Data](), bundleID: "b", environment: .sandbox) }
    }
}
