import Clearance
import ClearanceAppStore
import ClearanceEntitlements
import ClearanceTestSupport
import Foundation
import Testing

/// The portable App Store provider: verified transactions grant their products until they
/// expire or are revoked; it claims nothing while it holds nothing.
@Suite struct AppStoreEntitlementProviderTests {
    final class Clock: Sendable {
        let offset = Locked<TimeInterval>(0)
        func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    }

    func provider(_ chain: TestAppleChain, clock: Clock = Clock(), grants: @escaping @Sendable (AppStoreTransaction) -> ProductAccess = { .products([$0.productID]) }) throws -> AppStoreEntitlementProvider {
        AppStoreEntitlementProvider(
            verifier: try AppStoreTransactionVerifier(rootCertificates: [try chain.rootDER], bundleID: "com.example.reader", environment: .sandbox),
            grants: grants, notificationCenter: nil, now: { clock.now() }
        ) { product, transaction in
            ContentCredentials(userID: transaction.originalTransactionID, password: "exchanged-for-\(product)")
        }
    }

    @Test func itClaimsNothingUntilItHoldsATransaction() async throws {
        let chain = try TestAppleChain()
        let provider = try provider(chain)
        #expect(await provider.access(to: "issue-1") == .notClaimed)
        try await provider.record(signedTransaction: try chain.sign(TransactionClaims(productId: "issue-1", expires: nil)))
        #expect(await provider.access(to: "issue-1") == .granted)
        #expect(await provider.access(to: "issue-2") == .denied)
        #expect(try await provider.credentials(for: "issue-1").password == "exchanged-for-issue-1")
        await #expect(throws: EntitlementError.self) { try await provider.credentials(for: "issue-2") }
    }

    @Test func aSubscriptionGrantsEverythingUntilItExpires() async throws {
        let chain = try TestAppleChain()
        let clock = Clock()
        let provider = try provider(chain, clock: clock, grants: { $0.type == "Auto-Renewable Subscription" ? .all : .products([$0.productID]) })
        let changes = provider.changes
        try await provider.record(signedTransaction: try chain.sign(TransactionClaims(expires: 3600)))
        #expect(await provider.snapshot.access == .all)
        #expect(await provider.access(to: "anything") == .granted)
        clock.offset.withLock { $0 = 7200 }
        #expect(await provider.access(to: "anything") == .denied)
        do {
            _ = try await provider.credentials(for: "anything")
            Issue.record("expired")
        } catch {
            #expect(error.code == .subscriptionExpired)
        }
        var states: [SubscriptionState] = []
        for await change in changes {
            states.append(change.current.state)
            if states.count == 2 { break }
        }
        #expect(states == [.active, .inactive])
    }

    @Test func aRenewalReplacesItsPeriodAndARestoreReplacesEverything() async throws {
        let chain = try TestAppleChain()
        let provider = try provider(chain)
        let now = Date()
        try await provider.record(signedTransaction: try chain.sign(TransactionClaims(now: now.addingTimeInterval(-40 * 86_400), expires: 30 * 86_400)))
        #expect(await provider.access(to: "com.example.reader.monthly") == .denied)  // lapsed period
        try await provider.record(signedTransaction: try chain.sign(TransactionClaims(now: now, expires: 30 * 86_400)))
        #expect(await provider.access(to: "com.example.reader.monthly") == .granted)
        #expect(await provider.heldTransactions.count == 1)
        // An older period arriving late changes nothing.
        try await provider.record(signedTransaction: try chain.sign(TransactionClaims(now: now.addingTimeInterval(-40 * 86_400), expires: 30 * 86_400)))
        #expect(await provider.access(to: "com.example.reader.monthly") == .granted)

        let stranger = try TestAppleChain()
        let failures = await provider.replaceAll(with: [
            try chain.sign(TransactionClaims(productId: "issue-7", originalTransactionId: "7", expires: nil)),
            try stranger.sign(TransactionClaims(productId: "issue-8", originalTransactionId: "8", expires: nil)),
        ])
        #expect(failures.map(\.code) == [.untrustedChain])
        #expect(await provider.heldTransactions.map(\.productID) == ["issue-7"])
        #expect(await provider.access(to: "com.example.reader.monthly") == .denied)
    }

    @Test func aRevokedTransactionGrantsNothing() async throws {
        let chain = try TestAppleChain()
        let provider = try provider(chain)
        var claims = TransactionClaims(now: Date().addingTimeInterval(-60), productId: "issue-1", expires: nil)
        try await provider.record(signedTransaction: try chain.sign(claims))
        #expect(await provider.access(to: "issue-1") == .granted)
        claims.revocationDate = claims.signedDate + 1000
        claims.signedDate += 2000
        try await provider.record(signedTransaction: try chain.sign(claims))
        #expect(await provider.access(to: "issue-1") == .denied)
    }

    @Test func inAChainTheServerDecidesFirstAndTheAppStoreAfter() async throws {
        let chain = try TestAppleChain()
        let appStore = try provider(chain)
        try await appStore.record(signedTransaction: try chain.sign(TransactionClaims(productId: "issue-9", expires: nil)))
        /// A server provider with no session: it claims nothing.
        struct SignedOut: EntitlementProvider {
            func access(to product: String) async -> EntitlementAccess { .notClaimed }
            func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials { throw .subscriptionExpired(state: .signedOut, message: nil) }
        }
        let entitlements = EntitlementChain([SignedOut(), appStore])
        #expect(await entitlements.access(to: "issue-9") == .granted)
        #expect(try await entitlements.credentials(for: "issue-9").userID == "2000000100")
    }
}
