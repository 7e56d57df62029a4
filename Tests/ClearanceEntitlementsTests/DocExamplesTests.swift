import Clearance
import ClearanceEntitlements
import ClearanceStore
import ClearanceTestSupport
import Foundation
import Testing

/// The Swift blocks of `ClearanceEntitlements`' landing page (run against the development Pugpig
/// endpoints) and doc comments (compiled: they name a service on the internet).
/// `DocumentationTests` checks the documents show the marked regions.
@Suite("Doc examples: entitlements", .timeLimit(.minutes(1)))
struct EntitlementsDocExamplesTests {
    /// Stands in for an app's in-app purchases (asked after the subscription service).
    typealias InAppPurchases = ReadmeEntitlementsExampleTests.InAppPurchases

    @Test func landingPage() async throws {
        try await PugpigFixture.with { fixture in
            let directory = fixture.directory
            let subscriptions = fixture.base
            let storeURL = directory.file("entitlements.json"), keyURL = directory.file("session.key")
            let inAppPurchases = InAppPurchases()
            let (password, editionURL, file) = ("bob-password", fixture.contentURL("issue-1"), directory.file("issue-1.zip"))

            // snippet: begin
            let pugpig = PugpigEntitlementProvider(configuration: PugpigConfiguration(
                endpoints: .standard(base: subscriptions),
                store: StoredEntitlements.fileStore(at: storeURL, key: try .loadOrCreate(file: keyURL))))
            let entitlements = EntitlementChain([pugpig, inAppPurchases])
            try await pugpig.signIn(username: "bob", password: password)
            let snapshot = try await pugpig.verify()
            if await entitlements.access(to: "issue-1") == .granted {
                let download = ContentDownloader(provider: entitlements).start("issue-1", from: editionURL, to: file)
                for await progress in download.progress { print(progress) }
                try await download.result()
            }
            // snippet: end

            #expect(snapshot.access == .products(["issue-1", "issue-2"]))
            #expect(try Data(contentsOf: file) == PugpigFixture.edition)
        }
    }

    static func pugpigProviderDocComment(storeURL: URL, keyURL: URL, password: String) async throws -> (EntitlementSnapshot, ContentCredentials) {
        // snippet: begin
        let pugpig = PugpigEntitlementProvider(configuration: PugpigConfiguration(
            endpoints: .standard(base: URL(string: "https://subs.example.com/pugpig")!),
            store: StoredEntitlements.fileStore(at: storeURL, key: try .loadOrCreate(file: keyURL))))
        try await pugpig.signIn(username: "reader@example.com", password: password)
        let snapshot = try await pugpig.verify()            // state, products, message
        let credentials = try await pugpig.credentials(for: "issue-42")
        // snippet: end
        return (snapshot, credentials)
    }

    static func entitlementChainDocComment(
        pugpig: PugpigEntitlementProvider, storeKit: any EntitlementProvider,
        download: (String, ContentCredentials) async throws -> Void
    ) async throws {
        // snippet: begin
        let chain = EntitlementChain([pugpig, storeKit])      // the server first, then the App Store
        if await chain.access(to: "issue-42") == .granted {
            let credentials = try await chain.credentials(for: "issue-42")   // from the deciding provider
            try await download("issue-42", credentials)
        }
        for await change in chain.changes { print(change) }  // every provider's changes
        // snippet: end
    }
}
