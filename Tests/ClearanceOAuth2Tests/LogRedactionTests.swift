import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// No token, secret, password, code or verifier in any log line, at trace level, across every flow.
@Suite struct LogRedactionTests {
    @Test func noSecretReachesTheLogsAtTraceLevel() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let store = InMemorySessionStore()

        // Password, proactive refresh, reactive refresh, an invalid_grant that quotes the token.
        let session = harness.session(store: store)
        let client = try harness.client(session)
        try await session.signIn(with: harness.password)
        _ = try await harness.callAPI(client)
        harness.clock.advance(by: .seconds(3_590))
        _ = try await harness.callAPI(client)
        harness.server.forgetAccessTokens()
        _ = try await harness.callAPI(client)
        harness.clock.advance(by: .seconds(3_600))
        let refused = try #require(store.current?.token.refreshToken)
        _ = harness.server.state.withLock { $0.refreshTokens.remove(refused) }
        _ = try? await harness.callAPI(client)

        // App grant with client_secret_post, a failed sign-in, sign-out with revocation.
        let app = harness.session(automaticSignIn: harness.app, authentication: .clientSecretPost)
        _ = try await harness.callAPI(harness.client(app))
        _ = try? await app.signIn(with: PasswordGrant(username: "jane@example.com", password: "wrong-password-value"))
        await app.signOut()

        // Authorization code with PKCE through the loopback listener.
        let listener = try await LoopbackRedirectListener.start(logger: harness.logs.logger("clearance.oauth2.loopback"))
        defer { Task { await listener.stop() } }
        // The real clock: the manual one's sleep returns at once, and the flow's timeout would
        // race the redirect.
        let coded = harness.session(clock: SystemOAuth2Clock())
        try await coded.signIn(with: AuthorizationCodeFlow(receiver: listener, timeout: .seconds(20)) { url in
            try await Browser.follow(url)
        })

        // Device flow.
        harness.server.scriptDevicePolls(.oauthError("authorization_pending"), .oauthError("slow_down"), .normal)
        try await harness.session().signIn(with: DeviceAuthorizationGrant { _ in })

        let secrets = harness.configuredSecrets + harness.server.issuedSecrets + harness.server.codeVerifiers
            + ["wrong-password-value", "WDJB-MJHT"]
        #expect(harness.server.issuedSecrets.count > 10)
        #expect(harness.server.codeVerifiers.count == 1)
        let lines = harness.logs.all
        #expect(lines.count > 30)
        #expect(lines.contains { $0.hasPrefix("trace") })
        for secret in secrets {
            let leaks = lines.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "secret leaked into: \(leaks)")
        }
    }
}
