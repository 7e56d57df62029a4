import Clearance
import ClearanceBloomreach
import ClearanceStore
import ClearanceTestSupport
import Foundation
import Testing

/// The current token in a `SecureStore`, keyed by the customer it was fetched for.
@Suite("Customer token persistence", .timeLimit(.minutes(1)))
struct CustomerTokenPersistenceTests {
    typealias Tests = CustomerTokenSourceTests

    /// A store that fails every operation.
    struct BrokenStore: SecureStore {
        func load() async throws(SessionStoreError) -> StoredCustomerToken? { throw .corrupt(reason: "unreadable", movedAside: nil) }
        func save(_ value: StoredCustomerToken) async throws(SessionStoreError) { throw .writeFailed(path: "/nowhere", reason: "read-only") }
        func clear() async throws(SessionStoreError) { throw .writeFailed(path: "/nowhere", reason: "read-only") }
    }

    @Test func aRelaunchRestoresTheTokenForTheSameCustomerOnly() async throws {
        let clock = TestClock()
        let store = InMemoryStore<StoredCustomerToken>()
        let provider = TestProvider { customer, call in TestProvider.jwt(for: customer, call: call, exp: 600) }
        let janes = try await Tests.source(provider, clock: clock, store: store).credential()
        #expect(store.current == StoredCustomerToken(customerIDs: Tests.jane, token: Tests.token(janes), expiresAt: TestClock.start.addingTimeInterval(600), receivedAt: TestClock.start))

        let relaunched = Tests.source(provider, clock: clock, store: store)
        let log = EventLog(relaunched)
        #expect(try await relaunched.credential() == janes)
        #expect(provider.calls.count == 1 && relaunched.expiresAt == TestClock.start.addingTimeInterval(600))
        try await log.expect(["restored"])

        // Launched for john: jane's token is never used, and no longer kept.
        let forJohn = Tests.source(provider, clock: clock, customer: Tests.john, store: store)
        let johns = try await forJohn.credential()
        #expect(johns != janes && provider.calls == [Tests.jane, Tests.john])
        #expect(store.current?.customerIDs == Tests.john)
    }

    @Test func aStoredTokenDueForRenewalIsNotRestored() async throws {
        let clock = TestClock()
        let store = InMemoryStore<StoredCustomerToken>()
        let provider = TestProvider { customer, call in TestProvider.jwt(for: customer, call: call, exp: 600) }
        _ = try await Tests.source(provider, clock: clock, store: store).credential()
        clock.set(541)
        _ = try await Tests.source(provider, clock: clock, store: store).credential()
        #expect(provider.calls.count == 2)
    }

    @Test func switchingCustomersAndRefusalsClearTheStore() async throws {
        let store = InMemoryStore<StoredCustomerToken>()
        let provider = TestProvider()
        let source = Tests.source(provider, store: store)
        let first = try await source.credential()
        #expect(store.current != nil)
        await source.anonymize()
        #expect(store.current == nil)                                   // cleared before anonymize returned
        await source.identify(Tests.jane)
        let second = try await source.credential()
        #expect(store.current?.token == Tests.token(second) && second != first)

        // Refused, and the provider then fails: the refused token is not left in the store.
        try await store.clear()
        let failing = TestProvider { _, call in call == 0 ? "header.eyJzdWIiOnt9fQ.sig" : nil }
        let refusing = Tests.source(failing, store: store)
        let refused = try await refusing.credential()
        #expect(store.current?.token == Tests.token(refused))
        await #expect(throws: AuthorizationError.self) { try await refusing.refreshCredential(after: refused) }
        #expect(store.current == nil && failing.calls.count == 2)

        // Invalidated: dropped from the store too (asynchronously, in order).
        let again = Tests.source(TestProvider(), store: store)
        _ = try await again.credential()
        again.invalidate()
        try await eventually("the invalidated token leaves the store") { store.current == nil }
    }

    @Test func aBrokenStoreIsReportedAndTheSourceGoesOnInMemory() async throws {
        let provider = TestProvider()
        let source = Tests.source(provider, store: BrokenStore())
        let log = EventLog(source)
        let token = try await source.credential()
        #expect(try await source.credential() == token && provider.calls.count == 1)
        try await log.expect(["store_failed", "received", "store_failed"])
        guard case .storeFailed(let error) = log.events[0] else { return }
        #expect(error.qualifiedCode.hasPrefix("session_store."))
    }

    @Test func theEncryptedFileStoreKeepsTheTokenSealed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("state/customer-token.json")
        let key = try SessionStoreKey.loadOrCreate(file: directory.file("state/session.key"))
        let provider = TestProvider()
        let token = try await Tests.source(provider, store: StoredCustomerToken.fileStore(at: file, key: key)).credential()
        let bytes = try Data(contentsOf: file)
        #expect(!String(decoding: bytes, as: UTF8.self).contains(Tests.token(token)))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("jane@example.com"))
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber == 0o600)
        let relaunched = Tests.source(provider, store: StoredCustomerToken.fileStore(at: file, key: key))
        #expect(try await relaunched.credential() == token && provider.calls.count == 1)
        #expect(StoredCustomerToken.fileStore(key: key).fileURL.lastPathComponent == "customer-token.json")
    }
}
