import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import Foundation
import Testing

/// Refresh: proactive and reactive, rotation, `invalid_grant`, transient failures, the window.
@Suite(.timeLimit(.minutes(1))) struct RefreshTests {
    @Test func proactiveRefreshWithinTheLeewayRotatesAndSavesBeforeUse() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = RecordingStore()
        let session = try await harness.signedInSession(store: store)
        let firstRefresh = try #require(store.current?.token.refreshToken)
        let publishedAtSave = Locked<[Date?]>([])
        store.onSave = { [weak session] _ in
            // What the session is using while the store is being written (weakly: the session
            // holds the store, a strong capture would keep both alive for ever).
            publishedAtSave.withLock { $0.append(session?.tokenInfo?.obtainedAt) }
        }
        let signedInAt = harness.clock.now
        harness.clock.advance(by: .seconds(3_600 - 20))  // inside the 30 s leeway, not yet expired
        let client = try harness.client(session)
        #expect(try await harness.callAPI(client) == 200)
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        let rotated = try #require(store.current?.token.refreshToken)
        #expect(rotated != firstRefresh)
        #expect(!harness.server.isValidRefreshToken(firstRefresh))
        // At the moment of saving, the session still used the old token: saved before used.
        #expect(publishedAtSave.withLock { $0 } == [signedInAt])
        #expect(session.tokenInfo?.obtainedAt == harness.clock.now)
    }

    @Test func reactiveRefreshOn401ThroughAuthorizedClient() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        harness.server.forgetAccessTokens()  // the server no longer accepts the current token
        #expect(try await harness.callAPI(harness.client(session)) == 200)
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        #expect(harness.server.apiRequests == 2)
    }

    @Test func keepsTheOldRefreshTokenWhenTheServerReturnsNone() async throws {
        let harness = try await SessionHarness.start {
            $0.rotateRefreshTokens = false
            $0.returnRefreshTokenOnRefresh = false
        }
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = try await harness.signedInSession(store: store)
        let original = try #require(store.current?.token.refreshToken)
        for _ in 0..<2 {
            harness.clock.advance(by: .seconds(3_600))
            #expect(try await harness.callAPI(harness.client(session)) == 200)
            #expect(store.current?.token.refreshToken == original)
        }
        #expect(harness.server.tokenRequests("refresh_token") == 2)
    }

    @Test func invalidGrantOnRefreshSignsOutAndClearsTheStore() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = RecordingStore()
        let session = harness.session(store: store)
        let events = session.events
        try await session.signIn(with: harness.password)
        #expect(store.current != nil)
        harness.server.script("refresh_token", .oauthError("invalid_grant", description: "revoked"))
        harness.clock.advance(by: .seconds(3_600))
        do {
            _ = try await harness.callAPI(harness.client(session))
            Issue.record("must fail")
        } catch let error as AuthorizationError {
            #expect((error.underlying as? OAuth2Error)?.code == .invalidGrant)
        } catch {
            Issue.record("untyped \(error)")
        }
        #expect(!session.isAuthenticated)
        guard case .signedOut = session.state else { Issue.record("\(session.state)"); return }
        #expect(store.current == nil)
        #expect(store.clears == 1)
        var names: [String] = []
        for await event in events {
            names.append(event.name)
            if case .sessionEnded(let error) = event {
                #expect(error.code == .invalidGrant)
                break
            }
        }
        #expect(names == ["signed_in", "session_ended"])
        // No retry: the next request fails at once without asking the server.
        await #expect(throws: AuthorizationError.self) { try await session.credential() }
        #expect(harness.server.tokenRequests("refresh_token") == 1)
    }

    @Test func fiveHundredThenTwoHundredKeepsTheSession() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = try await harness.signedInSession(store: store)
        harness.server.script("refresh_token", .status(500, body: "boom"))
        harness.clock.advance(by: .seconds(3_600))
        let client = try harness.client(session)
        do {
            _ = try await harness.callAPI(client)
            Issue.record("must fail")
        } catch {
            #expect((error.underlying as? OAuth2Error)?.code == .serverUnavailable)
        }
        #expect(session.isAuthenticated)
        #expect(store.current != nil)
        // Backing off: fails fast without reaching the server.
        do {
            _ = try await session.currentCredential()
            Issue.record("must back off")
        } catch {
            #expect(error.code == .backingOff)
        }
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        harness.clock.advance(by: .seconds(1))
        #expect(try await harness.callAPI(client) == 200)
        #expect(harness.server.tokenRequests("refresh_token") == 2)
        #expect(session.isAuthenticated)
    }

    @Test func aNetworkFailureKeepsTheSessionAndBacksOff() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let transport = FlakyTransport()
        var configuration = harness.configuration()
        configuration.transport = transport
        let session = OAuth2Session(configuration: configuration)
        let events = session.events
        try await session.signIn(with: harness.password)
        harness.clock.advance(by: .seconds(3_600))
        transport.failNext(1)
        do {
            _ = try await session.currentCredential()
            Issue.record("must fail")
        } catch {
            #expect(error.code == .networkFailure)
            #expect(error.authorizationError(source: "oauth2").code == .networkFailure)
        }
        #expect(session.isAuthenticated)
        guard case .authenticated = session.state else { Issue.record("\(session.state)"); return }
        do {
            _ = try await session.currentCredential()
            Issue.record("must back off")
        } catch {
            #expect(error.code == .backingOff)
            #expect((error.underlying as? OAuth2Error)?.code == .networkFailure)
        }
        harness.clock.advance(by: .seconds(1))
        _ = try await session.currentCredential()
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        for await event in events {
            if case .refreshFailed(let error) = event {
                #expect(error.code == .networkFailure)
                break
            }
        }
    }

    @Test func aStillValidTokenIsUsedWhileAProactiveRefreshFails() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        harness.server.script("refresh_token", .status(503, retryAfter: 2))
        harness.clock.advance(by: .seconds(3_590))
        #expect(try await harness.callAPI(harness.client(session)) == 200)
        #expect(harness.server.tokenRequests("refresh_token") == 1)
    }

    @Test func theRefreshWindowTripsAfterFiveFailedAttemptsInThirtySecondsAndRecovers() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        // A short backoff, so that five attempts fit in the window.
        let session = try await harness.signedInSession(backoff: RefreshBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(2)))
        for _ in 0..<6 { harness.server.script("refresh_token", .status(502)) }
        harness.clock.advance(by: .seconds(3_600))
        for attempt in 1...5 {
            do {
                _ = try await session.currentCredential()
                Issue.record("attempt \(attempt) must fail")
            } catch {
                #expect(error.code == .serverUnavailable, "attempt \(attempt)")
            }
            harness.clock.advance(by: .seconds(2))
        }
        #expect(harness.server.tokenRequests("refresh_token") == 5)
        // Sixth attempt, 10 s after the first: fails fast with a clear error, nothing sent.
        do {
            _ = try await session.currentCredential()
            Issue.record("must trip")
        } catch {
            guard case .refreshLimitReached(let attempts, let window, let retryAfter) = error else { Issue.record("\(error)"); return }
            #expect(attempts == 5)
            #expect(window == .seconds(30))
            #expect(retryAfter == .seconds(20))
            #expect(error.message.contains("5 in 30 s"))
        }
        #expect(harness.server.tokenRequests("refresh_token") == 5)
        #expect(session.isAuthenticated)
        // Once the window has passed, requests reach the server again (and succeed).
        harness.clock.advance(by: .seconds(20))
        harness.server.state.withLock { $0.scripted["refresh_token"] = [] }
        _ = try await session.currentCredential()
        #expect(harness.server.tokenRequests("refresh_token") == 6)
    }

    @Test func anErrorReturnedWithHTTP200IsAnError() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = harness.session()
        harness.server.script("password", .oauthError("invalid_scope", status: 200))
        do {
            try await session.signIn(with: harness.password)
            Issue.record("must fail")
        } catch {
            #expect(error.code == .invalidScope)
            guard case .server(let server) = error else { Issue.record("\(error)"); return }
            #expect(server.httpStatus == 200)
        }
        #expect(!session.isAuthenticated)
    }

    @Test func expiryIsMonotonicWhateverTheWallClockDoes() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        harness.clock.jumpWallClock(by: 7 * 86_400)  // the user moves the device clock a week ahead
        _ = try await session.currentCredential()
        #expect(harness.server.tokenRequests("refresh_token") == 0)
    }

    @Test func unrenewableExpiredTokenEndsTheSession() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = harness.session(store: store)
        try await session.signIn(with: ClientCredentialsGrant())
        harness.clock.advance(by: .seconds(3_600))
        do {
            _ = try await session.currentCredential()
            Issue.record("must fail")
        } catch {
            #expect(error.code == .tokenExpired)
        }
        #expect(!session.isAuthenticated)
        #expect(store.current == nil)
    }

    @Test func automaticSignInRenewsAClientCredentialsTokenWithoutARefreshToken() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = harness.session(automaticSignIn: ClientCredentialsGrant())
        _ = try await session.currentCredential()
        harness.clock.advance(by: .seconds(3_600))
        _ = try await session.currentCredential()
        #expect(harness.server.tokenRequests("client_credentials") == 2)
    }
}
