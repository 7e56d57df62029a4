import Clearance
import ClearanceTestSupport
@testable import ClearanceOAuth2
import Foundation
import HTTPTypes
import Testing

/// What a hostile or careless server or store can hand the session: a token type it must not
/// send as a bearer, an expiry no `Duration` can hold, a rotated token it must not leave valid.
@Suite(.serialized) struct HostileAnswerTests {
    func parse(_ json: String, scheme: String = "Bearer") throws(OAuth2Error) -> TokenResponse {
        try TokenResponse.parse(HTTPResponse(status: .ok), body: Data(json.utf8), scheme: scheme)
    }

    /// RFC 6749 §7.1: the client must understand the token type; `Bearer` compares without case.
    @Test func tokenTypeMustBeBearerOrTheConfiguredScheme() throws {
        for type in ["Bearer", "bearer", "BEARER", "bEaReR"] {
            #expect(try parse(#"{"access_token":"a1","token_type":"\#(type)"}"#).tokenType == type)
        }
        #expect(try parse(#"{"access_token":"a1","token_type":"oauth2"}"#, scheme: "OAuth2").tokenType == "oauth2")
        #expect(try parse(#"{"access_token":"a1","token_type":"bearer"}"#, scheme: "OAuth2").tokenType == "bearer")
        for type in ["mac", "DPoP", "N_A", "Bearer2", "bearer "] {
            let error = #expect(throws: OAuth2Error.self) { try parse(#"{"access_token":"at-SECRET","token_type":"\#(type)"}"#) }
            #expect(error?.code == .badResponse, "\(type)")
            #expect(error?.message.contains("token_type") == true)
            #expect(error?.message.contains("at-SECRET") == false)
        }
    }

    @Test func aSessionRefusesATokenOfAnotherType() async throws {
        let harness = try await SessionHarness.start(.init(tokenType: "mac"))
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = harness.session(store: store)
        let error = await #expect(throws: OAuth2Error.self) { try await session.signIn(with: harness.password) }
        #expect(error?.code == .badResponse)
        #expect(store.current == nil)
        #expect(!session.isAuthenticated)
    }

    /// A stored expiry of 1e300 (or -1e300, or a huge `expires_in`) is clamped, never a trap.
    @Test(arguments: [1e300, -1e300, 1e18, -1e18])
    func aRestoredExpiryBeyondAnyBoundIsClamped(offset: Double) async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let token = OAuth2Token(accessToken: "stored-at", refreshToken: "stored-rt",
                                expiresAt: Date(timeIntervalSinceReferenceDate: offset), obtainedAt: Date(timeIntervalSinceReferenceDate: -offset))
        let session = harness.session(store: InMemorySessionStore(StoredSession(token: token)))
        let state = await session.restore()
        guard case .authenticated(let info) = state else { Issue.record("\(state)"); return }
        let expiresAt = try #require(info.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(harness.clock.now)) <= OAuth2Token.longestLifetime + 1)
        _ = try? await session.credential()
        #expect(TokenResponse(accessToken: "a", expiresIn: .seconds(Int64.max)).token(receivedAt: Date()).expiresAt!.timeIntervalSinceNow <= OAuth2Token.longestLifetime + 1)
    }

    /// A refresh in flight when the app signs out: the sign-out revokes the refresh token it
    /// held, and the rotated one the refresh brings back is revoked too, and never stored.
    @Test func aSignOutRacingARefreshRevokesTheRotatedTokenToo() async throws {
        let harness = try await SessionHarness.start(.init(holdRefreshAnswers: true))
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = try await harness.signedInSession(store: store)
        let first = try #require(store.current?.token.refreshToken)
        let refreshing = Task { try await session.refresh() }
        // The server has honoured the refresh (the rotated token is issued) and holds its answer.
        try await eventually("the refresh honoured, its answer held") { harness.server.refreshAnswers.heldCount == 1 }
        let outcome = await session.signOut()
        guard case .revoked = outcome else { Issue.record("\(outcome)"); return }
        harness.server.refreshAnswers.open()
        _ = try? await refreshing.value
        try await eventually("the rotated refresh token revoked") { harness.server.revoked.count == 2 }
        let revoked = harness.server.revoked
        #expect(revoked.first == first)
        #expect(harness.server.state.withLock { $0.refreshTokens.isEmpty })
        #expect(store.current == nil)
        #expect(!session.isAuthenticated)
    }
}
