import Clearance
import ClearanceOAuth2
import Foundation
import Testing

/// State as an AsyncSequence and as notifications; sign-out with revocation.
@Suite(.timeLimit(.minutes(1))) struct StateTests {
    @Test func everyStateChangeIsStreamedAndPosted() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let center = NotificationCenter()
        let posted = Locked<[String]>([])
        let observer = center.addObserver(forName: OAuth2Session.stateDidChangeNotification, object: nil, queue: nil) { note in
            let state = note.userInfo?[OAuth2Session.stateKey] as? OAuth2SessionState
            posted.withLock { $0.append(state?.name ?? "?") }
        }
        defer { center.removeObserver(observer) }
        let session = harness.session(notificationCenter: center)
        let states = session.states
        try await session.signIn(with: harness.password)
        harness.clock.advance(by: .seconds(3_600))
        _ = try await session.currentCredential()
        await session.signOut()

        var streamed: [String] = []
        for await state in states {
            streamed.append(state.name)
            if case .signedOut = state, streamed.count > 1 { break }
        }
        let expected = ["authenticating", "authenticated", "refreshing", "authenticated", "signed_out"]
        #expect(streamed == ["signed_out"] + expected)  // a state stream starts with the current state
        #expect(posted.withLock { $0 } == expected)
    }

    @Test func signOutRevokesTheRefreshTokenThenClearsTheStore() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = try await harness.signedInSession(store: store)
        let refreshToken = try #require(store.current?.token.refreshToken)
        let outcome = await session.signOut()
        guard case .revoked("refresh_token") = outcome else { Issue.record("\(outcome)"); return }
        #expect(harness.server.revoked == [refreshToken])
        #expect(!harness.server.isValidRefreshToken(refreshToken))
        #expect(store.current == nil)
        #expect(!session.isAuthenticated)
        await #expect(throws: AuthorizationError.self) { try await session.credential() }
    }

    @Test func signOutStillSignsOutWhenRevocationFails() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = try await harness.signedInSession(store: store)
        harness.server.scriptRevocation(.status(500))
        let outcome = await session.signOut()
        guard case .failed(let error) = outcome else { Issue.record("\(outcome)"); return }
        #expect(error.code == .serverUnavailable)
        #expect(store.current == nil)
        #expect(!session.isAuthenticated)
    }

    @Test func revocationRetriesOnceAfterA503WithRetryAfter() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        harness.server.scriptRevocation(.status(503, retryAfter: 2))
        guard case .revoked = await session.signOut() else { Issue.record("must revoke on the retry"); return }
        #expect(harness.clock.sleeps == [.seconds(2)])
        #expect(harness.server.revoked.count == 1)
    }

    @Test func signOutWithoutARevocationEndpointSaysSo() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession(revocation: false)
        guard case .notConfigured = await session.signOut() else { Issue.record("notConfigured expected"); return }
        #expect(harness.server.revoked.isEmpty)
    }

    @Test func theSessionRestoresItselfFromTheStore() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        try await harness.session(store: store).signIn(with: harness.password)
        // A new process: a new session on the same store.
        let restarted = harness.session(store: store)
        #expect(!restarted.isAuthenticated)
        let state = await restarted.restore()
        #expect(state.isAuthenticated)
        #expect(try await harness.callAPI(harness.client(restarted)) == 200)
        #expect(harness.server.totalTokenRequests == 1)
    }

    @Test func aFailedStoreWriteIsAnEventNotSilence() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = RecordingStore()
        store.failWrites = true
        let session = harness.session(store: store)
        let events = session.events
        try await session.signIn(with: harness.password)
        #expect(session.isAuthenticated)  // the session goes on in memory
        for await event in events {
            if case .storeWriteFailed(let error) = event {
                #expect(error.code == .writeFailed)
                break
            }
        }
    }
}
