import Clearance
import ClearanceEntitlements
import Foundation
import HTTPTypes
import ClearanceTestSupport
import Testing

/// Pugpig's provider order, case by case: asked in the order added, the first that claims
/// decides, and when none claims, the last added decides.
@Suite struct EntitlementChainTests {
    /// A provider with fixed answers that records what it was asked.
    final class FixedProvider: EntitlementProvider {
        let name: String
        let answers: [String: EntitlementAccess]
        let asked = Locked<[String]>([])
        let events = NotifyingBroadcaster<EntitlementChange>(name: EntitlementChange.notificationName, key: EntitlementChange.userInfoKey, notificationCenter: nil)

        init(_ name: String, _ answers: [String: EntitlementAccess]) {
            self.name = name
            self.answers = answers
        }

        func access(to product: String) async -> EntitlementAccess {
            asked.withLock { $0.append("access \(product)") }
            return answers[product] ?? .notClaimed
        }

        func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
            asked.withLock { $0.append("credentials \(product)") }
            guard answers[product] == .granted else { throw .productUnavailable(product: product, message: name) }
            return ContentCredentials(userID: name, password: "\(name)-password")
        }

        var changes: AsyncStream<EntitlementChange> { events.subscribe() }
        var log: [String] { asked.withLock { $0 } }
    }

    @Test func theFirstThatClaimsDecidesAndLaterOnesAreNotAsked() async throws {
        let server = FixedProvider("server", ["issue-1": .denied])
        let store = FixedProvider("store", ["issue-1": .granted])
        let chain = EntitlementChain([server, store])
        #expect(await chain.access(to: "issue-1") == .denied)
        #expect(server.log == ["access issue-1"] && store.log.isEmpty)
        let decided = try #require(await chain.decision(for: "issue-1"))
        #expect(decided.provider.name == "server" && decided.access == .denied)
    }

    @Test func aGrantFromTheFirstClaimantIsUsedForCredentials() async throws {
        let server = FixedProvider("server", ["issue-1": .granted])
        let store = FixedProvider("store", ["issue-1": .granted])
        let chain = EntitlementChain([server, store])
        #expect(try await chain.credentials(for: "issue-1").userID == "server")
        #expect(store.log.isEmpty)
    }

    @Test func providersThatDoNotClaimAreSkippedInOrder() async throws {
        let first = FixedProvider("first", [:])
        let second = FixedProvider("second", ["issue-2": .granted])
        let third = FixedProvider("third", ["issue-2": .denied])
        let chain = EntitlementChain([first, second, third])
        #expect(await chain.access(to: "issue-2") == .granted)
        #expect(first.log == ["access issue-2"] && second.log == ["access issue-2"] && third.log.isEmpty)
        #expect(try await chain.credentials(for: "issue-2").userID == "second")
    }

    @Test func whenNoneClaimsTheLastAddedDecides() async throws {
        let first = FixedProvider("first", [:])
        let last = FixedProvider("last", [:])
        let chain = EntitlementChain([first])
        chain.add(last)
        #expect(await chain.access(to: "issue-9") == .notClaimed)
        #expect(first.log == ["access issue-9"] && last.log == ["access issue-9"])
        let decided = try #require(await chain.decision(for: "issue-9"))
        #expect(decided.provider.name == "last")
        await #expect(throws: EntitlementError.self) { try await chain.credentials(for: "issue-9") }
        #expect(last.log.contains("credentials issue-9") && !first.log.contains("credentials issue-9"))
    }

    @Test func theLastDecidesEvenWhenItAloneClaims() async throws {
        let chain = EntitlementChain([FixedProvider("first", [:]), FixedProvider("last", ["issue-1": .denied])])
        #expect(await chain.access(to: "issue-1") == .denied)
    }

    @Test func aSingleProviderIsAskedOnce() async {
        let only = FixedProvider("only", ["issue-1": .granted])
        #expect(await EntitlementChain([only]).access(to: "issue-1") == .granted)
        #expect(only.log == ["access issue-1"])
    }

    @Test func anEmptyChainClaimsNothingAndHasNoCredentials() async {
        let chain = EntitlementChain()
        #expect(await chain.access(to: "issue-1") == .notClaimed)
        #expect(await chain.decision(for: "issue-1") == nil)
        do {
            _ = try await chain.credentials(for: "issue-1")
            Issue.record("an empty chain has no credentials")
        } catch {
            #expect(error.qualifiedCode == "entitlements.productUnavailable")
        }
    }

    @Test func theChainForwardsEveryProvidersChanges() async throws {
        let first = FixedProvider("first", [:])
        let second = FixedProvider("second", [:])
        let chain = EntitlementChain([first, second])
        let changes = chain.changes
        let snapshot = EntitlementSnapshot(state: .active, access: .all, fetchedAt: Date())
        // Nothing to wait for: `add` (in `init`) subscribed to each provider's changes, and
        // `changes` above to the chain's, before this post; both streams buffer what comes.
        second.events.post(EntitlementChange(provider: "second", previous: nil, current: snapshot))
        let change = try await ClearanceTestSupport.first(changes, timeout: .seconds(5)) { _ in true }
        #expect(change.provider == "second" && change.current == snapshot)
    }

    @Test func completionHandlerFormsReturnAtOnceAndCallBack() async throws {
        let chain = EntitlementChain([FixedProvider("p", ["issue-1": .granted])])
        let (accessStream, accessSink) = AsyncStream<EntitlementAccess>.makeStream()
        chain.access(to: "issue-1") { accessSink.yield($0) }
        #expect(try await ClearanceTestSupport.first(accessStream, timeout: .seconds(5)) { _ in true } == .granted)
        let (credentialsStream, credentialsSink) = AsyncStream<Result<ContentCredentials, EntitlementError>>.makeStream()
        chain.credentials(for: "issue-2") { credentialsSink.yield($0) }
        let result = try await ClearanceTestSupport.first(credentialsStream, timeout: .seconds(5)) { _ in true }
        guard case .failure(let error) = result else { Issue.record("issue-2 is not granted"); return }
        #expect(error.code == .productUnavailable)
    }
}
