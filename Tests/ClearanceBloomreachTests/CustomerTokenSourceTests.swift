import Clearance
import ClearanceBloomreach
import ClearanceStore
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// `CustomerTokenSource` with a scripted provider and a clock the test moves: expiry from the
/// token, single flight, every event, and the customer switch, including the race with a fetch
/// in flight.
@Suite("Customer token source", .timeLimit(.minutes(1)))
struct CustomerTokenSourceTests {
    static let jane: CustomerIDs = ["registered": "jane@example.com"]
    static let john: CustomerIDs = ["registered": "john@example.com"]

    static func source(_ provider: TestProvider, clock: TestClock = TestClock(), customer: CustomerIDs = jane, maxAge: TimeInterval? = nil,
                       store: (any SecureStore<StoredCustomerToken>)? = nil) -> CustomerTokenSource {
        CustomerTokenSource(customer: customer, leeway: 60, maxAge: maxAge, store: store, notificationCenter: nil, now: clock.reading, provider: provider.provider)
    }

    static func token(_ credential: Credential) -> String {
        String(credential.authorizationValue?.dropFirst("Bearer ".count) ?? "")
    }

    @Test func theExpiryIsReadFromTheTokenAndTheTokenRenewedLeewayBeforeIt() async throws {
        let clock = TestClock()
        let provider = TestProvider { customer, call in TestProvider.jwt(for: customer, call: call, exp: Double(call + 1) * 600) }
        let source = Self.source(provider, clock: clock)
        let log = EventLog(source)
        let first = try await source.credential()
        #expect(first == .bearer(TestProvider.jwt(for: Self.jane, call: 0, exp: 600)))
        #expect(source.expiresAt == TestClock.start.addingTimeInterval(600))
        clock.set(539)
        #expect(try await source.credential() == first)
        #expect(provider.calls.count == 1)
        clock.set(540)
        let renewed = try await source.credential()
        #expect(renewed != first && provider.calls.count == 2)
        #expect(source.expiresAt == TestClock.start.addingTimeInterval(1200))
        try await log.expect(["received", "about_to_expire", "received"])
        guard case .aboutToExpire(let customer, let expiry) = log.events[1] else { return }
        #expect(customer == Self.jane && expiry == TestClock.start.addingTimeInterval(600))
    }

    @Test func aTokenFoundPastItsExpiryIsReportedExpiredAndReplaced() async throws {
        let clock = TestClock()
        let provider = TestProvider { customer, call in TestProvider.jwt(for: customer, call: call, exp: call == 0 ? 100 : 10_000) }
        let source = Self.source(provider, clock: clock)
        let log = EventLog(source)
        _ = try await source.credential()
        clock.set(100)
        _ = try await source.credential()
        #expect(provider.calls.count == 2)
        try await log.expect(["received", "expired", "received"])
        guard case .expired(_, let expiredAt) = log.events[1] else { return }
        #expect(expiredAt == TestClock.start.addingTimeInterval(100))
    }

    @Test func withoutExpTheTokenLivesMaxAgeOrUntilRefused() async throws {
        let clock = TestClock()
        let provider = TestProvider()                                   // JWTs without exp
        let bounded = Self.source(provider, clock: clock, maxAge: 300)
        _ = try await bounded.credential()
        #expect(bounded.expiresAt == TestClock.start.addingTimeInterval(300))
        clock.set(239)
        _ = try await bounded.credential()
        #expect(provider.calls.count == 1)
        clock.set(240)
        _ = try await bounded.credential()
        #expect(provider.calls.count == 2)

        let opaque = TestProvider { _, call in "opaque-token-\(call)" } // not a JWT: maxAge too
        let fromOpaque = Self.source(opaque, clock: clock, maxAge: 300)
        _ = try await fromOpaque.credential()
        #expect(fromOpaque.expiresAt == clock.now.addingTimeInterval(300))

        let unbounded = TestProvider()
        let forever = Self.source(unbounded, clock: clock)
        _ = try await forever.credential()
        clock.set(10 * 365 * 24 * 3600)
        _ = try await forever.credential()
        #expect(unbounded.calls.count == 1 && forever.expiresAt == nil)
    }

    @Test func oneProviderCallHoweverManyRequestsWait() async throws {
        let provider = TestProvider()
        provider.hold()
        let source = Self.source(provider)
        let waiting = (0..<100).map { _ in Task { try await source.credential() } }
        try await provider.waitUntilHeld(0)
        try await eventually("all 100 requests wait for the one provider call") { source.waitingForFetch == 100 }
        provider.release(0)
        var tokens = Set<Credential>()
        for task in waiting { tokens.insert(try await task.value) }
        #expect(tokens.count == 1 && provider.calls.count == 1)
    }

    @Test func nilEmptyOrNoCustomerIsNotProvidedAndNothingIsSent() async throws {
        for answer in [nil, "", "  \n"] as [String?] {
            let source = Self.source(TestProvider { _, _ in answer })
            let log = EventLog(source)
            let error = await #expect(throws: AuthorizationError.self) { try await source.credential() }
            #expect(error?.code == .missingCredential)
            #expect(error?.underlying as? CustomerTokenMissing == .notProvided)
            try await log.expect(["not_provided"])
        }
        let provider = TestProvider()
        let anonymous = Self.source(provider, customer: .anonymous)
        let log = EventLog(anonymous)
        let error = await #expect(throws: AuthorizationError.self) { try await anonymous.credential() }
        #expect(error?.underlying as? CustomerTokenMissing == .anonymous)
        #expect(error?.message.contains("produced no credential") == true)
        #expect(provider.calls.isEmpty)
        try await log.expect(["not_provided"])
    }

    @Test func aFailingProviderIsReportedWithItsError() async throws {
        struct BackendDown: Error {}
        let source = Self.source(TestProvider { _, _ in throw BackendDown() })
        let log = EventLog(source)
        let error = await #expect(throws: AuthorizationError.self) { try await source.credential() }
        #expect(error?.code == .missingCredential && error?.underlying is BackendDown)
        try await log.expect(["provider_failed"])

        let refused = Self.source(TestProvider { _, _ in throw AuthorizationError.unavailable(reason: "maintenance") })
        let passed = await #expect(throws: AuthorizationError.self) { try await refused.credential() }
        #expect(passed?.code == .unavailable)
    }

    @Test func aRejectedTokenIsDroppedOnceAndReplacedByOneFetch() async throws {
        let provider = TestProvider()
        let source = Self.source(provider)
        let log = EventLog(source)
        let refused = try await source.credential()
        let burst = (0..<20).map { _ in Task { try await source.refreshCredential(after: refused) } }
        var replacements = Set<Credential>()
        for task in burst { replacements.insert(try await task.value) }
        #expect(replacements.count == 1 && !replacements.contains(refused))
        #expect(provider.calls.count == 2)
        try await log.expect(["received", "rejected", "received"])
        // A late 401 for the old token fetches nothing more.
        #expect(try await source.refreshCredential(after: refused) == replacements.first)
        #expect(provider.calls.count == 2)
    }

    @Test func identifyAndAnonymizeDropTheTokenAtOnce() async throws {
        let provider = TestProvider()
        let source = Self.source(provider)
        let log = EventLog(source)
        let janes = try await source.credential()
        await source.identify(Self.jane)                            // the same customer: nothing changes
        #expect(try await source.credential() == janes && provider.calls == [Self.jane])
        await source.identify(Self.john)
        #expect(source.customer == Self.john && source.expiresAt == nil)
        let johns = try await source.credential()
        #expect(johns != janes && provider.calls == [Self.jane, Self.john])
        await source.anonymize()
        await #expect(throws: AuthorizationError.self) { try await source.credential() }
        #expect(provider.calls.count == 2)
        try await log.expect(["received", "customer_changed", "received", "customer_changed", "not_provided"])
        guard case .customerChanged(let from, let to) = log.events[3] else { return }
        #expect(from == Self.john && to == .anonymous)
    }

    /// The race: a fetch for jane is in flight when the app switches to john. Whichever answer
    /// comes first, jane's token is thrown away and every waiting request gets john's.
    @Test(arguments: [true, false])
    func aTokenFetchedForThePreviousCustomerIsNeverApplied(janeAnswersFirst: Bool) async throws {
        let provider = TestProvider()
        provider.hold()
        let store = InMemoryStore<StoredCustomerToken>()
        let source = Self.source(provider, store: store)
        let log = EventLog(source)
        let beforeSwitch = Task { try await source.credential() }
        try await provider.waitUntilHeld(0)                          // jane's fetch is in flight
        await source.identify(Self.john)
        let afterSwitch = Task { try await source.credential() }
        try await provider.waitUntilHeld(1)                          // john's, in its own flight
        #expect(provider.calls == [Self.jane, Self.john])

        provider.release(janeAnswersFirst ? 0 : 1)
        if janeAnswersFirst { try await log.expect(["customer_changed", "discarded"]) } else { try await log.expect(["customer_changed", "received"]) }
        provider.release(janeAnswersFirst ? 1 : 0)

        let johns = Credential.bearer(TestProvider.jwt(for: Self.john, call: 1, exp: nil))
        #expect(try await beforeSwitch.value == johns)
        #expect(try await afterSwitch.value == johns)
        #expect(try await source.credential() == johns)
        #expect(provider.calls == [Self.jane, Self.john])
        #expect(Set(log.names) == ["customer_changed", "discarded", "received"])
        #expect(!log.events.contains { if case .received(let customer, _) = $0 { customer == Self.jane } else { false } })
        #expect(store.current?.customerIDs == Self.john && store.current?.token == Self.token(johns))
    }

    @Test func eventsArePostedToNotificationCenterToo() async throws {
        let center = NotificationCenter()
        let posted = Locked<[String]>([])
        let observer = center.addObserver(forName: CustomerTokenEvent.notificationName, object: nil, queue: nil) { notification in
            if let event = notification.userInfo?[CustomerTokenEvent.eventKey] as? CustomerTokenEvent { posted.withLock { $0.append(event.name) } }
        }
        defer { center.removeObserver(observer) }
        let provider = TestProvider { _, call in call == 0 ? nil : TestProvider.jwt(for: Self.jane, call: call, exp: nil) }
        let source = CustomerTokenSource(customer: Self.jane, notificationCenter: center, provider: provider.provider)
        _ = try? await source.credential()
        let token = try await source.credential()
        _ = try await source.refreshCredential(after: token)
        await source.identify(Self.john)
        try await eventually("four notifications") { posted.withLock { $0 } == ["not_provided", "received", "rejected", "received", "customer_changed"] }
    }

    @Test func nothingShowsATokenOrACustomersIds() async throws {
        let logs = LogCapture()
        let provider = TestProvider { customer, call in TestProvider.jwt(for: customer, call: call, exp: 600) }
        let source = CustomerTokenSource(customer: Self.jane, notificationCenter: nil, logger: logs.logger(), provider: provider.provider)
        let log = EventLog(source)
        let credential = try await source.credential()
        _ = try await source.refreshCredential(after: credential)
        await source.identify(Self.john)
        try await log.expect(["received", "rejected", "received", "customer_changed"])
        let token = Self.token(credential)
        let shown = log.events.map(\.description) + logs.all + [Self.jane.description, String(reflecting: Self.jane), "\(Mirror(reflecting: Self.jane).children.map(\.value))",
                     StoredCustomerToken(customerIDs: Self.jane, token: token, expiresAt: nil, receivedAt: Date()).description]
        for line in shown {
            #expect(!line.contains(token) && !line.contains("jane@example.com") && !line.contains("john@example.com"), "\(line)")
        }
        #expect(Self.jane.description == "CustomerIDs(registered: <redacted>)")
    }

    @Test func aCancelledCallerStopsWaiting() async throws {
        let provider = TestProvider()
        provider.hold()
        let source = Self.source(provider)
        let waiting = Task { try await source.credential() }
        try await provider.waitUntilHeld(0)
        waiting.cancel()
        let error = await #expect(throws: AuthorizationError.self) { try await waiting.value }
        #expect(error?.code == .cancelled)
        provider.release(0)
    }
}
