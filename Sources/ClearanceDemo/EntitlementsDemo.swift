import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceStore
import Foundation
import Logging

/// The demo's entitlements part (the Pugpig job) on the development Pugpig endpoints: ordered
/// providers, sign in, verify, a stale token renewed once for every caller, a protected
/// download with progress, a refused product, and the offline status.
struct EntitlementsDemo {
    let report: DemoReport

    /// In-app purchases of single issues, asked after the subscription service.
    struct SingleIssuePurchases: EntitlementProvider {
        let purchased: Set<String>
        var name: String { "purchases" }
        func access(to product: String) async -> EntitlementAccess { purchased.contains(product) ? .granted : .notClaimed }
        func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
            throw .productUnavailable(product: product, message: "the demo's purchases carry no content credentials")
        }
    }

    /// The system clock, moved forward on demand (shared by the server and the provider).
    final class ShiftableClock: Sendable {
        private let offset = Locked<TimeInterval>(0)
        func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
        func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    }

    func run() async throws {
        report.begin("Content entitlements (Pugpig-style) on the embedded development subscription service")
        let quiet = Logger.silent("clearance.demo.entitlements")
        let clock = ShiftableClock()
        let users = [
            DevelopmentUser(token: "reader-password", id: "reader", entitlements: .issues(["issue-1", "issue-2"])),
        ]
        let pugpig = DevelopmentPugpigServer(users: users, settings: DevelopmentPugpigSettings(secret: "demo-edition-secret-demo-edition-secret"), now: { clock.now() })
        let edition = Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        for product in ["issue-1", "issue-2", "issue-3"] { pugpig.library.add(edition, product: product, path: "edition.zip") }
        let server = try await RunningServer.start(pugpig.router(), logger: quiet)
        let directory = FileManager.default.temporaryDirectory.appending(path: "clearance-demo-entitlements-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StoredEntitlements.fileStore(at: directory.appending(path: "entitlements.json"), key: .generate())
        let provider = PugpigEntitlementProvider(configuration: PugpigConfiguration(
            endpoints: .standard(base: server.baseURL.appending(path: "pugpig")), store: store,
            verificationTimeout: 2, notificationCenter: nil, now: { clock.now() }, logger: quiet))
        let chain = EntitlementChain([provider, SingleIssuePurchases(purchased: ["issue-7"])])
        let content = { (product: String) in server.baseURL.appending(path: "content/\(product)/edition.zip") }

        await report.step("ordered providers: the subscription service first, in-app purchases next (Pugpig's rule)") {
            let signedOut = await chain.decision(for: "issue-7")
            let decided = "issue-7 while signed out → \(signedOut?.access ?? .notClaimed) by \(signedOut?.provider.name ?? "nobody")"
            let nobody = await chain.decision(for: "issue-9")
            return (signedOut?.provider.name == "purchases" && signedOut?.access == .granted && nobody?.provider.name == "purchases" && nobody?.access == .notClaimed,
                    "\(decided)\nissue-9 claimed by no one → the last added decides: \(nobody?.provider.name ?? "nobody") (\(nobody?.access ?? .notClaimed))")
        }

        await report.step("sign in: a wrong password is entitlements.notRecognised; the right one stores a token, encrypted") {
            var refused = "none"
            do throws(EntitlementError) { try await provider.signIn(username: "reader", password: "wrong") } catch { refused = "\(error.qualifiedCode) (\(error.serverMessage ?? ""))" }
            try await provider.signIn(username: "reader", password: "reader-password")
            let raw = try String(contentsOf: store.fileURL, encoding: .utf8)
            return (refused.hasPrefix("entitlements.notRecognised") && !raw.contains("reader"),
                    "wrong password: \(refused)\nsigned in; the store file holds no plaintext: \(!raw.contains("reader"))")
        }

        await report.step("verify: state, products and message; the chain now asks the service first") {
            let changes = provider.changes
            let snapshot = try await provider.verify()
            let change = await changes.first { _ in true }
            let issue1 = await chain.access(to: "issue-1"), issue3 = await chain.access(to: "issue-3")
            return (snapshot.state == .active && snapshot.access == .products(["issue-1", "issue-2"]) && issue1 == .granted && issue3 == .denied && change?.stateChanged == true,
                    "\(snapshot)\nmessage: \(snapshot.message ?? "none")\nissue-1 → \(issue1), issue-3 → \(issue3); change event: \(change.map(\.description) ?? "none")")
        }

        await report.step("stale → renewed: 20 concurrent verifications of an expired token, one renewal") {
            clock.advance(pugpig.settings.tokenLifetime + 60)
            let before = pugpig.stats.count("renew_token")
            let states = try await withThrowingTaskGroup(of: SubscriptionState.self) { group in
                for _ in 0..<20 { group.addTask { try await provider.verify().state } }
                return try await group.reduce(into: [SubscriptionState]()) { $0.append($1) }
            }
            let renewals = pugpig.stats.count("renew_token") - before
            return (states.allSatisfy { $0 == .active } && renewals == 1, "\(states.count) verifications answered active; renew_token calls: \(renewals)")
        }

        await report.step("a protected download with progress: HTTP Basic edition credentials + edge header, file renamed when complete") {
            let destination = directory.appending(path: "issue-1.zip")
            let download = ContentDownloader(provider: chain).start("issue-1", from: content("issue-1"), to: destination)
            var marks: [String] = []
            var lastQuarter = -1
            for await progress in download.progress {
                let quarter = Int((progress.fraction ?? 0) * 4)
                if quarter > lastQuarter { lastQuarter = quarter; marks.append("\(Int((progress.fraction ?? 0) * 100))%") }
            }
            let bytes = try await download.result()
            let complete = try Data(contentsOf: destination) == edition
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".download") }
            return (complete && leftovers.isEmpty && marks.last == "100%", "progress: \(marks.joined(separator: " → "))\n\(bytes) bytes, identical to the edition: \(complete); temporary files left: \(leftovers.count)")
        }

        await report.step("a refused product: issue-3 is entitlements.productUnavailable and no file appears") {
            let destination = directory.appending(path: "issue-3.zip")
            var code = "none"
            do throws(EntitlementError) { _ = try await ContentDownloader(provider: chain).download("issue-3", from: content("issue-3"), to: destination) } catch { code = error.qualifiedCode }
            let exists = FileManager.default.fileExists(atPath: destination.path)
            return (code == "entitlements.productUnavailable" && !exists, "\(code); file written: \(exists)")
        }

        await report.step("offline status: the service is gone, the last snapshot serves for the grace period and says so") {
            await server.stop()
            clock.advance(2 * 24 * 3600)
            let status = await provider.status()
            let access = await chain.access(to: "issue-2")
            guard case .offline(let graceEnd) = status.freshness else { return (false, "\(status)") }
            return (access == .granted, "\(status.freshness); issue-2 → \(access)\nfetched at \(status.snapshot.fetchedAt.formatted(.iso8601)), served offline until \(graceEnd.formatted(.iso8601))")
        }
    }
}
