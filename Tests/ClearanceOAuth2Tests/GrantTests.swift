import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Testing

/// Every grant against the in-process authorization server.
@Suite struct GrantTests {
    @Test func passwordGrantWithClientSecretBasic() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = harness.session()
        let info = try await session.signIn(with: harness.password)
        #expect(info.hasRefreshToken)
        #expect(info.expiresAt == harness.clock.now.addingTimeInterval(3600))
        #expect(session.isAuthenticated)
        #expect(harness.server.clientAuthentications == ["basic"])
        #expect(try await harness.callAPI(harness.client(session)) == 200)
    }

    @Test func clientSecretPostPutsTheClientInTheBody() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = harness.session(authentication: .clientSecretPost)
        try await session.signIn(with: ClientCredentialsGrant(scopes: ["read", "write"]))
        #expect(harness.server.clientAuthentications == ["post"])
        let form = try #require(harness.server.lastForm)
        #expect(form["grant_type"] == "client_credentials")
        #expect(form["scope"] == "read write")
        #expect(session.tokenInfo?.scopes == ["read", "write"])
        #expect(session.tokenInfo?.hasRefreshToken == false)
    }

    @Test func wrongPasswordIsInvalidGrantAndNoSession() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = harness.session()
        await #expect(throws: OAuth2Error.self) {
            try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "wrong"))
        }
        #expect(!session.isAuthenticated)
        guard case .failed(let error) = session.state else { Issue.record("\(session.state)"); return }
        #expect(error.code == .invalidGrant)
    }

    @Test func wrongClientSecretIsInvalidClient() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        var configuration = harness.configuration()
        configuration.client.secret = "not the secret"
        let session = OAuth2Session(configuration: configuration)
        do {
            try await session.signIn(with: harness.password)
            Issue.record("must fail")
        } catch {
            #expect(error.code == .invalidClient)
        }
    }

    @Test func podioAppGrantIsAOneLinerAndTheOAuth2SchemeReachesTheAPI() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let session = harness.session(headerScheme: "OAuth2")
        try await session.signIn(with: ExtensionGrant.podioApp(appID: "app-42", appToken: "app-token-0123456789"))
        let form = try #require(harness.server.lastForm)
        #expect(form["grant_type"] == "app")
        #expect(form["app_id"] == "app-42")
        let (response, body) = try await harness.client(session).send(.get, harness.server.apiURL)
        #expect(response.status == .ok)
        #expect(String(decoding: body, as: UTF8.self).contains(#""scheme":"OAuth2""#))
    }

    @Test func authorizationCodeWithPKCEThroughTheLoopbackListener() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        // The real clock: the manual one's sleep returns at once, and the flow's timeout would
        // race the redirect.
        let session = harness.session(clock: SystemOAuth2Clock())
        let opened = OpenedURLs()
        let flow = AuthorizationCodeFlow(receiver: listener, scopes: ["profile"], timeout: .seconds(20)) { url in
            opened.append(url)
            // The "browser": ask the authorization server, then follow its redirect to the listener.
            try await Browser.follow(url)
        }
        try await session.signIn(with: flow)
        let url = try #require(opened.all.first)
        let query = Dictionary(uniqueKeysWithValues: URLComponents(url: url, resolvingAgainstBaseURL: false)!.queryItems!.map { ($0.name, $0.value ?? "") })
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["redirect_uri"] == listener.redirectURI.absoluteString)
        #expect(query["state"]?.count == 43)
        let form = try #require(harness.server.lastForm)
        #expect(form["grant_type"] == "authorization_code")
        #expect(PKCE.challenge(for: form["code_verifier"] ?? "") == query["code_challenge"])
        #expect(try await harness.callAPI(harness.client(session)) == 200)
    }

    /// A scripted browser has delivered the redirect before the flow waits for it: the flow takes
    /// it at once, whatever its clock does (the manual clock's sleep returns at once, so a flow
    /// that raced its deadline against an arrived redirect timed out now and then under load).
    @Test func aRedirectThatArrivedBeforeTheWaitIsTakenWhateverTheClock() async throws {
        let harness = try await SessionHarness.start()
        let listener = try await LoopbackRedirectListener.start()
        try await withCleanup {
            let session = harness.session()
            let flow = AuthorizationCodeFlow(receiver: listener, scopes: ["profile"], timeout: .seconds(20)) { url in
                try await Browser.follow(url)
            }
            for _ in 0..<100 {
                try await session.signIn(with: flow)
                #expect(session.isAuthenticated)
                _ = await session.signOut()
            }
            #expect(listener.pendingCount == 0)
        } cleanup: {
            await listener.stop()
            await harness.stop()
        }
    }

    @Test func authorizationRedirectWithAnotherStateIsRefused() throws {
        let request = try AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize?tenant=1")!, clientID: "c",
            redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: ["a b"])
        #expect(request.url.query?.hasPrefix("tenant=1&response_type=code") == true)
        #expect(request.url.query?.contains("scope=a%20b") == true)
        #expect(throws: OAuth2Error.self) { try request.grant(forRedirect: URL(string: "http://127.0.0.1:9/callback?code=x&state=forged")!) }
        #expect(throws: OAuth2Error.self) { try request.grant(forRedirect: URL(string: "http://127.0.0.1:9/callback?code=x")!) }
        do {
            _ = try request.grant(forRedirect: URL(string: "http://127.0.0.1:9/callback?error=access_denied&state=\(request.state)")!)
        } catch {
            #expect(error.code == .accessDenied)
        }
        let grant = try request.grant(forRedirect: URL(string: "http://127.0.0.1:9/callback?code=the-code&state=\(request.state)")!)
        #expect(grant.code == "the-code")
        #expect(grant.codeVerifier == request.pkce.verifier)
    }

    @Test func deviceFlowKeepsPollingOnPendingAndSlowsDownForGood() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        harness.server.scriptDevicePolls(
            .oauthError("authorization_pending"), .oauthError("slow_down"), .oauthError("authorization_pending"), .normal)
        let session = harness.session()
        let prompts = OpenedURLs()
        try await session.signIn(with: DeviceAuthorizationGrant { prompt in
            prompts.append(prompt.verificationURI)
            #expect(prompt.userCode == "WDJB-MJHT")
            #expect(!"\(prompt)".contains("WDJB"))
        })
        #expect(prompts.all.count == 1)
        #expect(harness.clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])
        #expect(harness.server.tokenRequests(DeviceAuthorizationGrant.grantType) == 4)
        #expect(session.isAuthenticated)
    }

    @Test(arguments: ["access_denied", "expired_token"])
    func deviceFlowStopsOn(_ code: String) async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        harness.server.scriptDevicePolls(.oauthError("authorization_pending"), .oauthError(code))
        let session = harness.session()
        do {
            try await session.signIn(with: DeviceAuthorizationGrant { _ in })
            Issue.record("must fail")
        } catch {
            #expect(error.code.rawValue == code)
        }
        #expect(harness.server.tokenRequests(DeviceAuthorizationGrant.grantType) == 2)
    }

    @Test func deviceFlowStopsWhenTheCodesExpire() async throws {
        let harness = try await SessionHarness.start { $0.deviceExpiresIn = 12 }
        defer { Task { await harness.stop() } }
        harness.server.scriptDevicePolls(.oauthError("authorization_pending"), .oauthError("authorization_pending"), .oauthError("authorization_pending"))
        do {
            try await harness.session().signIn(with: DeviceAuthorizationGrant { _ in })
            Issue.record("must fail")
        } catch {
            #expect(error.code == .expiredToken)
        }
        #expect(harness.server.tokenRequests(DeviceAuthorizationGrant.grantType) == 2)
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeSending() async throws {
        let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: URL(string: "http://auth.example.com/token")!, clientID: "c", clientSecret: "s"))
        do {
            try await session.signIn(with: ClientCredentialsGrant())
            Issue.record("must fail")
        } catch {
            #expect(error.code == .misconfigured)
        }
    }
}
