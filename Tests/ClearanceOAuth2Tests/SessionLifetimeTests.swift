import Clearance
import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Testing

/// A session its caller dropped goes away: none of its own tasks, streams or closures keeps it
/// alive once its work is done (what LeakSanitizer would otherwise have to be trusted on).
@Suite struct SessionLifetimeTests {
    @Test func aDroppedSessionDeinitialisesAfterSignInRefreshStreamsAndSignOut() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        weak var dropped: OAuth2Session?
        do {
            let session = harness.session(store: RecordingStore())
            dropped = session
            let states = session.states
            let events = session.events
            try await session.signIn(with: harness.password)
            let client = try harness.client(session)
            #expect(try await harness.callAPI(client) == 200)
            harness.clock.advance(by: .seconds(3_600))
            async let one = session.currentCredential()
            async let two = session.currentCredential()
            #expect(try await one == two)
            _ = await session.signOut()
            _ = try await first(states) { !$0.isAuthenticated }
            _ = try await first(events) { _ in true }
        }
        try await eventually("the dropped session to deinitialise") { dropped == nil }
    }

    @Test func aDroppedSessionWithAStreamStillOpenDeinitialises() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        weak var dropped: OAuth2Session?
        let states: AsyncStream<OAuth2SessionState>
        do {
            let session = harness.session()
            dropped = session
            states = session.states
            try await session.signIn(with: harness.password)
        }
        try await eventually("the dropped session to deinitialise") { dropped == nil }
        _ = states
    }
}
