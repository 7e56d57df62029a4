import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceStore
import ClearanceTestSupport
import Foundation
import Logging
import Testing

/// The README's entitlements snippet, compiled and run against the development Pugpig endpoints.
/// Keep the two in step.
@Suite("README entitlements example")
struct ReadmeEntitlementsExampleTests {
    /// Stands in for an app's in-app purchases (asked after the subscription service).
    struct InAppPurchases: EntitlementProvider {
        func access(to product: String) async -> EntitlementAccess { .notClaimed }
        func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
            throw .productUnavailable(product: product, message: nil)
        }
    }

    @Test func signInVerifyAndDownload() async throws {
        try await PugpigFixture.with { fixture in
            let directory = fixture.directory
            let subscriptions = fixture.base
            let storeURL = directory.file("entitlements.json"), keyURL = directory.file("session.key")
            let inAppPurchases = InAppPurchases()
            let (password, editionURL, file) = ("bob-password", fixture.contentURL("issue-1"), directory.file("issue-1.zip"))

            // snippet: begin
            let pugpig = PugpigEntitlementProvider(configuration: PugpigConfiguration(
                endpoints: .standard(base: subscriptions),                   // each endpoint may have its own URL
                store: StoredEntitlements.fileStore(at: storeURL, key: try .loadOrCreate(file: keyURL))))
            let entitlements = EntitlementChain([pugpig, inAppPurchases])  // asked in order (Pugpig's rule)
            try await pugpig.signIn(username: "bob", password: password)    // entitlements.notRecognised when refused
            print(try await pugpig.verify())                                // EntitlementSnapshot(active, access: [issue-1, issue-2], …)
            if await entitlements.access(to: "issue-1") == .granted {
                let download = ContentDownloader(provider: entitlements).start("issue-1", from: editionURL, to: file)
                for await progress in download.progress { print(progress) } // 0 of 200000 bytes, …, 200000 of 200000 bytes
                try await download.result()                                 // the file appears only when complete
            }
            // snippet: end

            #expect(try Data(contentsOf: file) == PugpigFixture.edition)
            #expect(await pugpig.lastSnapshot?.access == .products(["issue-1", "issue-2"]))
        }
    }
}
