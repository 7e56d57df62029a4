import Clearance
import ClearanceEntitlements
import ClearanceStore
import ClearanceTestSupport
import Foundation
import Testing

/// The guide "Coming from Pugpig's authorisation providers"
/// (`Sources/ClearanceEntitlements/Documentation.docc/ComingFromPugpig.md`): every snippet
/// compiled and run, in order, against the development Pugpig endpoints. The guide's Swift blocks
/// are the marked regions below, line for line.
@Suite("Guide: coming from Pugpig", .timeLimit(.minutes(2)))
struct GuideComingFromPugpigTests {
    static let guide = "Sources/ClearanceEntitlements/Documentation.docc/ComingFromPugpig.md"

    /// Single issues bought in the app: claims only `special-*` products (none here).
    struct SingleIssues: EntitlementProvider {
        func access(to product: String) async -> EntitlementAccess { product.hasPrefix("special-") ? .denied : .notClaimed }
        func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
            throw .purchaseCancelled
        }
    }

    @Test func configureAskDownloadFailAndWatchChanges() async throws {
        try await PugpigFixture.with { fixture in
            let directory = fixture.directory
            let subscriptions = fixture.base
            let storeURL = directory.file("entitlements.json"), keyURL = directory.file("session.key")
            let password = PugpigFixture.bob.token
            let singleIssues = SingleIssues()
            let (editionURL, file) = (fixture.contentURL("issue-1"), directory.file("issue-1.zip"))
            // snippet: begin
            let pugpig = PugpigEntitlementProvider(configuration: PugpigConfiguration(
                endpoints: PugpigEndpoints(                             // initWithEndpointsForSignIn:renewToken:…
                    signIn: subscriptions.appending(path: "sign_in"), renewToken: subscriptions.appending(path: "renew_token"),
                    verifySubscription: subscriptions.appending(path: "verify_subscription"),
                    editionCredentials: subscriptions.appending(path: "edition_credentials")),
                method: .post,                                          // shouldPOSTRequests: YES
                store: StoredEntitlements.fileStore(at: storeURL, key: try .loadOrCreate(file: keyURL))))
            try await pugpig.signIn(username: "bob", password: password)   // entitlements.notRecognised when refused
            // snippet: end
            #expect(await pugpig.isSignedIn)
            // snippet: begin
            let entitlements = EntitlementChain([singleIssues, pugpig])    // first claim wins; else the last added
            // snippet: end
            // snippet: begin
            switch await entitlements.access(to: "issue-1") {               // hasPurchasedProductIdentifier:
            case .granted: print("Download")
            case .denied: print("Buy")
            case .notClaimed: print("no provider sells issue-1")
            }
            // snippet: end
            #expect(await entitlements.access(to: "issue-1") == .granted)
            // snippet: begin
            do throws(EntitlementError) {
                let credentials = try await entitlements.credentials(for: "issue-1")   // requestCredentialsForProductIdentifier:
                print(credentials)                                          // ContentCredentials(userID: …, password: <redacted>, …)
                let download = ContentDownloader(provider: entitlements).start("issue-1", from: editionURL, to: file)
                try await download.result()                                 // fresh credentials of its own; one retry on a 401
            } catch {
                print(error.qualifiedCode, error.message)                   // entitlements.subscriptionExpired: …
            }
            // snippet: end
            #expect(try Data(contentsOf: file) == PugpigFixture.edition)
            var refusal: EntitlementError.Code?
            // snippet: begin
            do throws(EntitlementError) {
                _ = try await entitlements.credentials(for: "issue-3")
            } catch {
                switch error.code {                                         // the NSError of the completion handler
                case .productUnavailable, .subscriptionExpired: print("Buy:", error.message)
                case .networkFailure: print("Offline:", error.message)
                default: print(error.qualifiedCode, error.message)          // unknown keeps the server's answer
                }
            }
            // snippet: end
            do throws(EntitlementError) {
                _ = try await entitlements.credentials(for: "issue-3")
            } catch {
                refusal = error.code
            }
            #expect(refusal == .productUnavailable)
            // snippet: begin
            let changes = entitlements.changes                              // KGAuthChangeNotification, from now on
            await pugpig.signOut()                                          // the token and the snapshot are gone
            for await change in changes {
                print(change)                                               // pugpig: active → signedOut
                if change.signedOut { break }
            }
            // snippet: end
            let stored = try await StoredEntitlements.fileStore(at: storeURL, key: .loadOrCreate(file: keyURL)).load()
            #expect(await !pugpig.isSignedIn && stored == nil)
            #expect(await entitlements.access(to: "issue-1") == .notClaimed)
        }
    }

    /// The guide's Swift blocks are exactly this file's marked regions, in order.
    @Test func theGuideShowsThisCode() throws {
        let blocks = DocumentedSnippets.swiftBlocks(in: try DocumentedSnippets.packageFile(Self.guide))
        let regions = DocumentedSnippets.markedRegions(in: try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(!blocks.isEmpty && blocks == regions, "\(Self.guide) and this test drifted apart")
    }
}
