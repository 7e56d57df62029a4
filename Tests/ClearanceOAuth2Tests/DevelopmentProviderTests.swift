import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import Crypto
import Foundation
import Testing

/// The development provider of `clearance serve`, driven by an OAuth2Session.
@Suite struct DevelopmentProviderTests {
    struct Running {
        let provider: DevelopmentOAuth2Provider
        let server: RunningServer
        var tokenURL: URL { server.baseURL.appendingPathComponent("oauth/token") }
        var revocationURL: URL { server.baseURL.appendingPathComponent("oauth/revoke") }
        var meURL: URL { server.baseURL.appendingPathComponent("oauth/me") }

        static func start() async throws -> Running {
            let provider = try await DevelopmentOAuth2Provider()
            return Running(provider: provider, server: try await RunningServer.start(provider.router()))
        }

        func session(automaticSignIn: (any OAuth2Grant)? = nil, headerScheme: String = "Bearer", clock: any OAuth2Clock = SystemOAuth2Clock()) -> OAuth2Session {
            OAuth2Session(configuration: OAuth2SessionConfiguration(
                tokenEndpoint: tokenURL, clientID: "demo-client", clientSecret: "demo-client-secret",
                revocationEndpoint: revocationURL, headerScheme: headerScheme, automaticSignIn: automaticSignIn,
                clock: clock, notificationCenter: nil))
        }

        func me(_ session: OAuth2Session) async throws -> (Int, String) {
            let authorizer = try RequestAuthorizer(policy: .always("dev"), sources: ["dev": session])
            let (response, body) = try await AuthorizedClient(authorizer: authorizer).send(.get, meURL)
            return (response.status.code, String(decoding: body, as: UTF8.self))
        }
    }

    @Test func signsInAsAUserAndAsAnAppAndTheAPIAcceptsTheJWTs() async throws {
        let running = try await Running.start()
        defer { Task { await running.server.stop() } }
        let user = running.session()
        try await user.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
        let (status, body) = try await running.me(user)
        #expect(status == 200)
        #expect(body.contains("user:jane@example.com"))

        let app = running.session(automaticSignIn: ExtensionGrant.podioApp(appID: "demo-app", appToken: "demo-app-token"), headerScheme: "OAuth2")
        let (appStatus, appBody) = try await running.me(app)
        #expect(appStatus == 200)
        #expect(appBody.contains("app:demo-app"))
        #expect(await running.provider.ledger.tokenRequests == ["password": 1, "app": 1])
    }

    @Test func refreshRotatesAndRevocationEndsTheRefreshToken() async throws {
        let running = try await Running.start()
        defer { Task { await running.server.stop() } }
        let clock = ManualClock()
        let store = InMemorySessionStore()
        var configuration = OAuth2SessionConfiguration(
            tokenEndpoint: running.tokenURL, clientID: "demo-client", clientSecret: "demo-client-secret",
            revocationEndpoint: running.revocationURL, store: store, clock: clock, notificationCenter: nil)
        configuration.client.authentication = .clientSecretPost
        let session = OAuth2Session(configuration: configuration)
        try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
        let first = try #require(store.current?.token.refreshToken)
        try await session.refresh()
        let second = try #require(store.current?.token.refreshToken)
        #expect(first != second)
        #expect(await running.provider.ledger.liveRefreshTokens == 1)
        guard case .revoked("refresh_token") = await session.signOut() else { Issue.record("revocation expected"); return }
        #expect(await running.provider.ledger.liveRefreshTokens == 0)
        // The old (rotated) refresh token is dead too.
        let stale = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: running.tokenURL, clientID: "demo-client", clientSecret: "demo-client-secret", notificationCenter: nil))
        do {
            _ = try await RefreshTokenGrant(refreshToken: first).requestToken(from: stale.server)
            Issue.record("a rotated refresh token must be refused")
        } catch {
            #expect(error.code == .invalidGrant)
        }
    }

    @Test func wrongClientSecretIsInvalidClientAndShortKeysAreRefused() async throws {
        let running = try await Running.start()
        defer { Task { await running.server.stop() } }
        let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: running.tokenURL, clientID: "demo-client", clientSecret: "wrong", notificationCenter: nil))
        do {
            try await session.signIn(with: ClientCredentialsGrant())
            Issue.record("must fail")
        } catch {
            #expect(error.code == .invalidClient)
        }
        await #expect(throws: DevelopmentProviderError.signingKeyTooShort(bits: 128)) {
            _ = try await DevelopmentOAuth2Provider(configuration: .init(signingKey: SymmetricKey(size: .bits128)))
        }
        // Lifetimes that cannot be told as a whole number of seconds are refused, not trapped on.
        await #expect(throws: DevelopmentProviderError.invalidLifetime(name: "accessTokenLifetime")) {
            _ = try await DevelopmentOAuth2Provider(configuration: .init(accessTokenLifetime: .seconds(Int64.max)))
        }
        await #expect(throws: DevelopmentProviderError.invalidLifetime(name: "refreshTokenLifetime")) {
            _ = try await DevelopmentOAuth2Provider(configuration: .init(refreshTokenLifetime: .zero))
        }
    }
}
