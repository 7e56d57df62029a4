import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceStore
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// The Pugpig provider against the development endpoints: sign in, every state and access
/// form, stale → renewed once, refused renewal, the snapshot's TTL, offline grace, changes.
@Suite(.timeLimit(.minutes(2))) struct PugpigProviderTests {
    @Test func signInVerifyAndCredentialsForEveryKindOfUser() async throws {
        try await PugpigFixture.with { fixture in

            let alice = try await fixture.signedIn(PugpigFixture.alice)
            let all = try await alice.verify()
            #expect(all.state == .active && all.access == .all && all.message == "Your subscription is active")
            #expect(all.categories.contains(UserInfoCategory(scheme: "http://schema.pugpig.com/attribute/tier", value: "all-access")))
            #expect(await alice.access(to: "issue-3") == .granted)
            let credentials = try await alice.credentials(for: "issue-3")
            #expect(credentials.userID == "alice" && credentials.password.hasPrefix("v1."))
            #expect(credentials.headers[DevelopmentPugpigServer.edgeHeader] != nil)

            let bob = try await fixture.signedIn(PugpigFixture.bob)
            #expect(try await bob.verify().access == .products(["issue-1", "issue-2"]))
            #expect(await bob.access(to: "issue-1") == .granted)
            #expect(await bob.access(to: "issue-3") == .denied)
            await expectError(.productUnavailable) { try await bob.credentials(for: "issue-3") }

            let carol = try await fixture.signedIn(PugpigFixture.carol)
            #expect(try await carol.verify().state == .inactive)
            #expect(await carol.access(to: "issue-1") == .denied)
            await expectError(.subscriptionExpired) { try await carol.credentials(for: "issue-1") }

            let dave = try await fixture.signedIn(PugpigFixture.dave)
            #expect(try await dave.verify() .state == .suspended)
            #expect(await dave.access(to: "issue-1") == .denied)
            do throws(EntitlementError) {
                _ = try await dave.credentials(for: "issue-1")
                Issue.record("a suspended account gets no credentials")
            } catch {
                #expect(error == .subscriptionExpired(state: .suspended))
            }
        }
    }

    @Test func aRefusedSignInIsNotRecognisedWithTheServersMessage() async throws {
        try await PugpigFixture.with { fixture in
            let provider = fixture.provider()
            do throws(EntitlementError) {
                try await provider.signIn(username: "alice", password: "wrong")
                Issue.record("must be refused")
            } catch {
                #expect(error.qualifiedCode == "entitlements.notRecognised")
                #expect(error.serverMessage == "Invalid credentials")
                #expect(!error.message.contains("wrong"))
            }
            #expect(await provider.isSignedIn == false)
            #expect(await provider.access(to: "issue-1") == .notClaimed)  // no session: ask the next provider
            await expectError(.subscriptionExpired) { try await provider.verify() }
        }
    }

    @Test(arguments: [PugpigRequestMethod.get, .post])
    func bothMethodsAndConfigurableFieldNames(method: PugpigRequestMethod) async throws {
        try await PugpigFixture.with { fixture in
            let provider = fixture.provider(method: method)
            try await provider.signIn(fields: [("username", "bob"), ("password", "bob-password")])
            #expect(try await provider.verify().state == .active)
            // Other field names reach the server as named (the development server knows only the defaults).
            var configuration = fixture.configuration(method: method)
            configuration.usernameField = "email"
            await expectError(.notRecognised) { try await PugpigEntitlementProvider(configuration: configuration).signIn(username: "bob", password: "bob-password") }
        }
    }

    @Test func aStaleTokenIsRenewedOnceForEveryCallerThenVerifiedAgain() async throws {
        try await PugpigFixture.with { fixture in
            let provider = try await fixture.signedIn(PugpigFixture.alice)
            try await provider.verify()
            fixture.clock.advance(fixture.server.settings.tokenLifetime + 60)
            let states = try await withThrowingTaskGroup(of: SubscriptionState.self) { group in
                for _ in 0..<50 { group.addTask { try await provider.verify().state } }
                return try await group.reduce(into: [SubscriptionState]()) { $0.append($1) }
            }
            #expect(states.count == 50 && states.allSatisfy { $0 == .active })
            #expect(fixture.server.stats.count("renew_token") == 1)
            // The renewed token is fresh: no more renewals.
            try await provider.verify()
            #expect(fixture.server.stats.count("renew_token") == 1)
        }
    }

    @Test func aRefusedRenewalEndsTheSession() async throws {
        try await PugpigFixture.with { fixture in
            let directory = fixture.directory
            let store = StoredEntitlements.fileStore(at: directory.file("entitlements.json"), key: .generate())
            let provider = try await fixture.signedIn(PugpigFixture.alice, store: store)
            try await provider.verify()
            #expect(FileManager.default.fileExists(atPath: store.fileURL.path))
            let changes = provider.changes
            fixture.clock.advance(fixture.server.settings.renewalWindow + 60)  // too old to renew
            do throws(EntitlementError) {
                try await provider.verify()
                Issue.record("the session must end")
            } catch {
                #expect(error == .subscriptionExpired(state: .signedOut))
                #expect(error.serverMessage == "The session has ended; sign in again")
            }
            #expect(await provider.isSignedIn == false)
            #expect(!FileManager.default.fileExists(atPath: store.fileURL.path))
            #expect(try await store.load() == nil)
            let change = try await first(changes, timeout: .seconds(5)) { $0.signedOut }
            #expect(change.previous?.state == .active && change.current.state == .signedOut)
            #expect(await provider.status().snapshot.state == .signedOut)
        }
    }

    @Test func withoutARenewalEndpointAStaleTokenEndsTheSession() async throws {
        try await PugpigFixture.with { fixture in
            var endpoints = fixture.endpoints
            endpoints.renewToken = nil
            let provider = PugpigEntitlementProvider(configuration: fixture.configuration(endpoints: endpoints))
            try await provider.signIn(username: "alice", password: "alice-password")
            fixture.clock.advance(fixture.server.settings.tokenLifetime + 1)
            await expectError(.subscriptionExpired) { try await provider.verify() }
            #expect(await provider.isSignedIn == false)
        }
    }

    @Test func theSnapshotIsTrustedForItsIntervalThenVerifiedAgain() async throws {
        try await PugpigFixture.with { fixture in
            let provider = try await fixture.signedIn(PugpigFixture.bob)
            #expect(await provider.access(to: "issue-1") == .granted)   // verifies (no snapshot yet)
            #expect(fixture.server.stats.count("verify_subscription") == 1)
            for _ in 0..<10 { _ = await provider.access(to: "issue-2") }
            #expect(fixture.server.stats.count("verify_subscription") == 1)  // within 24 h: the snapshot serves
            fixture.clock.advance(24 * 3600 + 1)
            #expect(await provider.status().freshness == .fresh)
            // The token had gone stale too: renewed, then verified.
            #expect(fixture.server.stats.count("verify_subscription") == 3 && fixture.server.stats.count("renew_token") == 1)
        }
    }

    @Test func callersThatFindTheSnapshotDueShareOneVerification() async throws {
        try await PugpigFixture.with { fixture in
            let provider = try await fixture.signedIn(PugpigFixture.bob)
            #expect(await provider.access(to: "issue-1") == .granted)
            fixture.clock.advance(24 * 3600 + 1)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { _ = await provider.access(to: "issue-2") } }
            }
            // One due check for all 20: the stale token renewed once, verified before and after.
            #expect(fixture.server.stats.count("verify_subscription") == 3 && fixture.server.stats.count("renew_token") == 1)
        }
    }

    /// A store that takes its time to read (a slow disk, a Keychain prompt at launch): a read
    /// finishes only once the test opens `reads`.
    private struct SlowStore: SecureStore {
        let wrapped: InMemoryStore<StoredEntitlements>
        let reads = Gate()
        func load() async throws(SessionStoreError) -> StoredEntitlements? {
            await reads.wait()
            return try await wrapped.load()
        }
        func save(_ value: StoredEntitlements) async throws(SessionStoreError) { try await wrapped.save(value) }
        func clear() async throws(SessionStoreError) { try await wrapped.clear() }
    }

    @Test func callersDuringTheStoreLoadWaitForItInsteadOfSeeingSignedOut() async throws {
        try await PugpigFixture.with { fixture in
            let stored = InMemoryStore<StoredEntitlements>()
            _ = try await fixture.signedIn(PugpigFixture.bob, store: stored)
            let store = SlowStore(wrapped: stored)
            let relaunched = fixture.provider(store: store)
            let asked = Counter()
            func ask() async -> EntitlementAccess {
                asked.increment()
                return await relaunched.access(to: "issue-1")
            }
            async let first = ask()
            async let second = ask()
            // The read finishes only once it is under way and both callers have asked.
            try await eventually("the store read under way and both callers asking") { store.reads.heldCount == 1 && asked.value == 2 }
            store.reads.open()
            #expect(await [first, second] == [.granted, .granted])
        }
    }

    /// On URLSession (a refused connection fails at once).
    @Test func offlineTheLastSnapshotServesForTheGracePeriodAndSaysSo() async throws {
        let fixture = try await PugpigFixture()
        let provider = try await fixture.signedIn(PugpigFixture.bob, transport: URLSessionHTTPTransport())
        let verified = try await provider.verify()
        await fixture.stop()  // the service is gone
        fixture.clock.advance(2 * 24 * 3600)
        let offline = await provider.status()
        guard case .offline(let graceEnd) = offline.freshness else { Issue.record("\(offline)"); return }
        #expect(graceEnd == verified.fetchedAt.addingTimeInterval(30 * 24 * 3600))
        #expect(offline.isOffline && offline.snapshot == verified)
        #expect(await provider.access(to: "issue-1") == .granted)
        let changes = provider.changes
        fixture.clock.advance(29 * 24 * 3600)  // past the grace
        let expired = await provider.status()
        #expect(expired.freshness == .graceExpired && !expired.grants("issue-1"))
        #expect(await provider.access(to: "issue-1") == .denied)
        let change = try await first(changes, timeout: .seconds(5)) { _ in true }
        #expect(change.current.access == ProductAccess.none && change.previous?.access == verified.access)
    }

    /// On AsyncHTTPClient, which keeps retrying a refused connection until its own timeout: the
    /// verification deadline serves the snapshot offline long before.
    @Test func theGracePeriodAndTheVerificationDeadlineAreConfigurable() async throws {
        let fixture = try await PugpigFixture()
        var configuration = fixture.configuration()
        configuration.offlineGrace = 3600
        configuration.verificationInterval = 60
        configuration.verificationTimeout = 0.5
        let provider = PugpigEntitlementProvider(configuration: configuration)
        try await provider.signIn(username: "alice", password: "alice-password")
        try await provider.verify()
        await fixture.stop()
        fixture.clock.advance(120)
        let start = ContinuousClock.now
        guard case .offline = await provider.status().freshness else { Issue.record("offline expected"); return }
        #expect(ContinuousClock.now - start < TestTiming.slowed(.seconds(5)))
        fixture.clock.advance(3600)
        #expect(await provider.status().freshness == .graceExpired)
    }

    @Test func changesAreSentOnChangeNotOnEveryPollAndPostedToNotificationCenter() async throws {
        try await PugpigFixture.with { fixture in
            let center = NotificationCenter()
            let posted = Counter()
            let observer = center.addObserver(forName: EntitlementChange.notificationName, object: nil, queue: nil) { note in
                if note.userInfo?[EntitlementChange.userInfoKey] is EntitlementChange { _ = posted.increment() }
            }
            defer { center.removeObserver(observer) }
            let provider = PugpigEntitlementProvider(configuration: fixture.configuration(notificationCenter: center))
            let changes = provider.changes
            try await provider.signIn(username: "bob", password: "bob-password")
            for _ in 0..<5 { try await provider.verify() }          // one change: signed out → active
            await provider.signOut()                                   // one change: → signed out
            var received: [EntitlementChange] = []
            for await change in changes {
                received.append(change)
                if received.count == 2 { break }
            }
            #expect(received.map(\.current.state) == [.active, .signedOut])
            #expect(received[0].current.access == .products(["issue-1", "issue-2"]))
            try await eventually("two notifications") { posted.value == 2 }
            #expect(fixture.server.stats.count("sign_out") == 1)
        }
    }

    @Test func theEncryptedStoreKeepsTheSessionAcrossProvidersWithoutPlaintext() async throws {
        try await PugpigFixture.with(settings: DevelopmentPugpigSettings(secret: "fixture-secret-of-thirty-two-bytes!!", globalAuthPassword: true)) { fixture in
            let directory = fixture.directory
            let key = SessionStoreKey.generate()
            let file = directory.file("entitlements.json")
            let first = try await fixture.signedIn(PugpigFixture.bob, store: StoredEntitlements.fileStore(at: file, key: key))
            let snapshot = try await first.verify()
            let global = try #require(await first.globalAuthPassword())
            let raw = try String(contentsOf: file, encoding: .utf8)
            for secret in [global, "issue-1", "bob", "active"] { #expect(!raw.contains(secret), "\(secret) in the store") }

            let second = PugpigEntitlementProvider(configuration: fixture.configuration(store: StoredEntitlements.fileStore(at: file, key: key)))
            #expect(await second.lastSnapshot == snapshot)
            #expect(await second.cachedStatus().freshness == .fresh)
            #expect(try await second.credentials(for: "issue-2").userID == "bob")
            #expect(fixture.server.stats.count("verify_subscription") == 1)  // the stored snapshot served

            // Another key cannot read it: the provider starts signed out and says why.
            let stranger = PugpigEntitlementProvider(configuration: fixture.configuration(store: StoredEntitlements.fileStore(at: file, key: .generate())))
            #expect(await stranger.isSignedIn == false)
            #expect(await stranger.storeError?.code == .wrongKey)
        }
    }

    @Test func theCompletionHandlerFormsWork() async throws {
        try await PugpigFixture.with { fixture in
            let provider = try await fixture.signedIn(PugpigFixture.alice)
            let (stream, sink) = AsyncStream<Result<ContentCredentials, EntitlementError>>.makeStream()
            provider.credentials(for: "issue-1") { sink.yield($0) }
            let result = try await first(stream, timeout: .seconds(10)) { _ in true }
            #expect((try? result.get())?.userID == "alice")
        }
    }
}

/// Expects `body` to throw an ``EntitlementError`` with `code`.
func expectError<T>(_ code: EntitlementError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T) async {
    do {
        _ = try await body()
        Issue.record("expected entitlements.\(code.rawValue)", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? EntitlementError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}

extension EntitlementError {
    /// Same code and, for `subscriptionExpired`, the same state (for `#expect(error == …)`).
    static func == (error: EntitlementError, expected: EntitlementError) -> Bool {
        switch (error, expected) {
        case (.subscriptionExpired(let a, _), .subscriptionExpired(let b, _)): a == b
        default: error.code == expected.code
        }
    }

    static func subscriptionExpired(state: SubscriptionState) -> EntitlementError { .subscriptionExpired(state: state, message: nil) }
}
