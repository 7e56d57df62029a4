import Clearance
import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Testing

/// Issue 30: a stored session records who issued it (token endpoint origin, client id, issuer);
/// a session configured for another server or client refuses it, sends nothing and leaves the
/// store as it is; a store from before the record is accepted once and saved with it; signing
/// in over a session revokes the earlier refresh token at its own server.
@Suite("Session provenance")
struct SessionProvenanceTests {
    @Test func aStoreFromAnotherTokenEndpointIsRefusedAndNothingIsSent() async throws {
        let issuer = try await SessionHarness.start()
        let other = try await SessionHarness.start()
        defer { Task { await issuer.stop(); await other.stop() } }
        let store = InMemorySessionStore()
        _ = try await issuer.signedInSession(store: store)
        let stored = try #require(store.current)
        #expect(stored.provenance == SessionProvenance(issuer.configuration()))
        let requestsBefore = issuer.server.totalTokenRequests

        let session = other.session(store: store)
        let events = session.events
        let state = await session.restore()
        guard case .failed(let error) = state, case .storedSessionMismatch(let member, let recorded, let configured) = error else {
            Issue.record("expected the stored session to be refused, got \(state)")
            return
        }
        #expect(member == .tokenEndpoint)
        #expect(recorded == SessionProvenance.origin(of: issuer.server.tokenURL))
        #expect(configured == SessionProvenance.origin(of: other.server.tokenURL))
        #expect(error.qualifiedCode == "oauth2.stored_session_mismatch")
        #expect(error.message.contains("token endpoint"))
        #expect(!error.message.contains(stored.token.accessToken) && !error.message.contains(stored.token.refreshToken!))
        let event = try await first(events) { if case .storeRefused = $0 { true } else { false } }
        #expect(event.name == "store_refused")

        // Every request fails with the same error; nothing reaches either server.
        await #expect(throws: AuthorizationError.self) { _ = try await session.credential() }
        do {
            _ = try await session.currentCredential()
            Issue.record("a refused store gave a credential")
        } catch {
            #expect(error.code == .storedSessionMismatch)
        }
        await #expect(throws: OAuth2Error.self) { try await session.refresh() }
        #expect(other.server.totalTokenRequests == 0 && other.server.apiRequests == 0 && other.server.revoked.isEmpty)
        #expect(issuer.server.totalTokenRequests == requestsBefore && issuer.server.revoked.isEmpty)
        // Signing out leaves the other configuration's store alone.
        _ = await session.signOut()
        #expect(store.current == stored)

        // The right configuration still uses it.
        let owner = issuer.session(store: store)
        #expect(await owner.restore().isAuthenticated)
    }

    @Test func aStoreOfAnotherClientIsRefused() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        _ = try await harness.signedInSession(store: store)
        let stored = try #require(store.current)
        var configuration = harness.configuration()
        configuration.store = store
        configuration.client = OAuth2Client(id: "another client", secret: "another secret")
        let session = OAuth2Session(configuration: configuration)
        guard case .failed(.storedSessionMismatch(let member, let recorded, let configured)) = await session.restore() else {
            Issue.record("expected the stored session to be refused")
            return
        }
        #expect(member == .clientID && recorded == harness.server.configuration.clientID && configured == "another client")
        await #expect(throws: AuthorizationError.self) { _ = try await session.credential() }
        #expect(harness.server.tokenRequests("refresh_token") == 0 && harness.server.apiRequests == 0)
        #expect(store.current == stored)
    }

    @Test func aStoreWrittenBeforeTheRecordIsAcceptedOnceAndSavedWithIt() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        _ = try await harness.signedInSession(store: store)
        var legacy = try #require(store.current)
        legacy.provenance = nil
        try await store.save(legacy)

        let session = harness.session(store: store)
        #expect(await session.restore().isAuthenticated)
        try await eventually("the store was saved again with its record") { store.current?.provenance != nil }
        #expect(store.current?.provenance == SessionProvenance(harness.configuration()))
        #expect(store.current?.token == legacy.token)
        #expect(harness.server.totalTokenRequests == 1, "restoring sent nothing")
    }

    /// An explicit sign-in replaces a refused store, and revokes the replaced refresh token only
    /// at the revocation endpoint that store recorded: the new server never sees it.
    @Test func signingInOverAnotherServersStoreRevokesItAtItsOwnServerOnly() async throws {
        let issuer = try await SessionHarness.start()
        let other = try await SessionHarness.start()
        defer { Task { await issuer.stop(); await other.stop() } }
        let store = InMemorySessionStore()
        var recording = issuer.configuration()
        recording.store = store
        recording.storesClientConfiguration = true
        let first = OAuth2Session(configuration: recording)
        try await first.signIn(with: issuer.password)
        let earlier = try #require(store.current?.token)

        let session = other.session(store: store)
        try await session.signIn(with: other.password)
        #expect(session.isAuthenticated)
        #expect(store.current?.provenance == SessionProvenance(other.configuration()))
        #expect(issuer.server.revoked == [earlier.refreshToken!])
        #expect(!issuer.server.isValidRefreshToken(earlier.refreshToken!))
        let seenByOther = other.server.state.withLock { $0.lastForms }.flatMap(\.values)
        #expect(!seenByOther.contains(earlier.refreshToken!) && !seenByOther.contains(earlier.accessToken))
        #expect(other.server.revoked.isEmpty)
    }

    /// Signing in over a session of the same configuration revokes the earlier refresh token.
    @Test func signingInOverASessionRevokesTheEarlierRefreshToken() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = try await harness.signedInSession(store: store)
        let earlier = try #require(store.current?.token.refreshToken)
        try await session.signIn(with: harness.password)
        #expect(harness.server.revoked == [earlier])
        #expect(!harness.server.isValidRefreshToken(earlier))
        let current = try #require(store.current?.token.refreshToken)
        #expect(harness.server.isValidRefreshToken(current))

        // A relaunched process signing in over the stored session does the same.
        let relaunched = harness.session(store: store)
        try await relaunched.signIn(with: harness.password)
        #expect(harness.server.revoked == [earlier, current])
    }
}
