import Clearance
@testable import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Testing

/// Cancellation, late 401s, timeouts and re-sign-in after an ended session.
@Suite struct SessionBehaviourTests {
    @Test func cancellingOneWaiterDoesNotCancelTheSharedRefresh() async throws {
        let harness = try await SessionHarness.start { $0.heldGrants = ["refresh_token"] }
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        harness.clock.advance(by: .seconds(3_600))
        let cancelled = Task { try await session.currentCredential() }
        let patient = Task { try await session.currentCredential() }
        // Both wait for the one refresh, which the server holds until the test lets it answer.
        try await eventually("both callers wait for the refresh") { session.tokenFlight.waiterCount == 2 }
        try await eventually("the refresh reached the server") { harness.server.tokenRequests("refresh_token") == 1 }
        cancelled.cancel()
        let start = ContinuousClock.now
        do {
            _ = try await cancelled.value
            Issue.record("the cancelled waiter must stop")
        } catch let error as OAuth2Error {
            #expect(error.code == .cancelled)
        }
        #expect(ContinuousClock.now - start < TestTiming.slowed(.milliseconds(2_000)))  // while the server still holds the refresh
        harness.server.tokenAnswers.open()
        _ = try await patient.value
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        #expect(session.state.isAuthenticated)
    }

    @Test func aLate401ForAnOlderTokenDoesNotRefreshAgain() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        let first = try await session.credential()
        let second = try await session.refreshCredential(after: first)
        #expect(second != first)
        let again = try await session.refreshCredential(after: first)
        #expect(again == second)
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        // The same credential refused twice in a row is refreshed again.
        _ = try await session.refreshCredential(after: second)
        #expect(harness.server.tokenRequests("refresh_token") == 2)
    }

    @Test func invalidateMakesTheNextRequestRenew() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        session.invalidate()
        _ = try await session.credential()
        #expect(harness.server.tokenRequests("refresh_token") == 1)
    }

    @Test func anEndedSessionSignsInAgainByItselfWhenAutomaticSignInIsConfigured() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()
        let session = harness.session(store: store, automaticSignIn: harness.app)
        _ = try await session.currentCredential()
        harness.server.script("refresh_token", .oauthError("invalid_grant"))
        harness.clock.advance(by: .seconds(3_600))
        #expect(try await harness.callAPI(harness.client(session)) == 200)
        #expect(harness.server.tokenRequests("app") == 2)
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        #expect(store.current != nil)
    }

    @Test func theAuthorizationCodeFlowTimesOutWhenNoRedirectArrives() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let flow = AuthorizationCodeFlow(receiver: SilentReceiver(), timeout: .seconds(60)) { _ in }
        do {
            try await harness.session().signIn(with: flow)
            Issue.record("must time out")
        } catch {
            #expect(error.code == .timedOut)
        }
        #expect(harness.clock.sleeps == [.seconds(60)])
    }

    @Test func notSignedInWithoutAutomaticSignInIsAMissingCredential() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        do {
            _ = try await harness.session().credential()
            Issue.record("must fail")
        } catch {
            #expect(error.code == .missingCredential)
            #expect((error.underlying as? OAuth2Error)?.code == .notSignedIn)
        }
        #expect(harness.server.totalTokenRequests == 0)
    }
}
