import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import ClearanceTesting
import ClearanceWire
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Logging
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Interop with a real OAuth 2.0 server: django-oauth-toolkit 3.4.1 (Tests/Interop/django_oauth,
/// pinned in Tests/Interop/requirements.txt, installed into .venv by scripts/python-env).
///
/// One server per suite run (`DjangoOAuthServer.trait()`, in ClearanceTestSupport): fresh sqlite database, freshly seeded
/// user and applications, stopped when the suite ends. Every test checks what the server really
/// issued through its RFC 7662 introspection endpoint. A missing interpreter or Django is a
/// failure with a clear message, never a skip.
@Suite("Django OAuth Toolkit interop", DjangoOAuthServer.trait())
struct DjangoInteropTests {
    @Test func passwordGrant() async throws {
        let django = try DjangoOAuthServer.require()
        let logs = LogCapture()
        let store = InMemorySessionStore()
        let session = django.session(client: "password", store: store, logs: logs)
        let info = try await session.signIn(with: PasswordGrant(username: "alice", password: django.password, scopes: ["read", "write"]))
        #expect(info.scopes == ["read", "write"])
        #expect(info.hasRefreshToken)
        #expect(session.isAuthenticated)

        let token = try #require(store.current?.token)
        let credential = try await session.currentCredential()
        #expect(credential == .accessToken(token.accessToken, scheme: "Bearer", expiresAt: token.expiresAt))
        let introspection = try await django.introspect(token.accessToken)
        #expect(introspection.active)
        #expect(introspection.scope == "read write")
        #expect(introspection.clientID == "clearance-password")
        #expect(introspection.username == "alice")
        #expect(!logs.text.contains(token.accessToken) && !logs.text.contains(django.password))
        _ = await session.signOut()
    }

    @Test func clientCredentialsGrantWithClientSecretPost() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let session = django.session(client: "client_credentials", authentication: .clientSecretPost, store: store)
        let info = try await session.signIn(with: ClientCredentialsGrant(scopes: ["read"]))
        #expect(info.scopes == ["read"])
        #expect(!info.hasRefreshToken)

        let token = try #require(store.current?.token)
        let introspection = try await django.introspect(token.accessToken)
        #expect(introspection.active)
        #expect(introspection.scope == "read")
        #expect(introspection.clientID == "clearance-service")
        #expect(introspection.username == nil)
    }

    @Test func authorizationCodeWithPKCEThroughLoopbackListener() async throws {
        let django = try DjangoOAuthServer.require()
        let listener = try await LoopbackRedirectListener.start()
        let store = InMemorySessionStore()
        let session = django.session(client: "authorization_code", store: store)
        let opened = OpenedURLs()
        let flow = AuthorizationCodeFlow(receiver: listener, scopes: ["read"], timeout: .seconds(30)) { url in
            opened.append(url)
            // The "browser": log in on Django's form, post the consent form, land on the listener.
            try await django.browser(["authorize", url.absoluteString, "--username", "alice", "--password=\(django.password)"])
        }
        let signedIn: Result<TokenInfo, OAuth2Error>
        do {
            signedIn = .success(try await session.signIn(with: flow))
        } catch {
            signedIn = .failure(error)
        }
        await listener.stop()
        let info = try signedIn.get()
        #expect(info.scopes == ["read"])
        #expect(info.hasRefreshToken)

        // The registered redirect URI is http://127.0.0.1/callback; the listener's port is the
        // system's choice, which DOT accepts for loopback URIs (RFC 8252 §7.3).
        let url = try #require(opened.all.first)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
        #expect(query.first { $0.name == "redirect_uri" }?.value == listener.redirectURI.absoluteString)

        let token = try #require(store.current?.token)
        let introspection = try await django.introspect(token.accessToken)
        #expect(introspection.active)
        #expect(introspection.scope == "read")
        #expect(introspection.clientID == "clearance-native")
        #expect(introspection.username == "alice")
    }

    @Test func authorizationCodeDeniedByTheUser() async throws {
        let django = try DjangoOAuthServer.require()
        let listener = try await LoopbackRedirectListener.start()
        let session = django.session(client: "authorization_code")
        let flow = AuthorizationCodeFlow(receiver: listener, scopes: ["read"], timeout: .seconds(30)) { url in
            try await django.browser(["authorize", url.absoluteString, "--username", "alice", "--password=\(django.password)", "--deny"])
        }
        let outcome: OAuth2Error?
        do {
            try await session.signIn(with: flow)
            outcome = nil
        } catch {
            outcome = error
        }
        await listener.stop()
        guard case .server(let answer)? = outcome else {
            Issue.record("expected access_denied from the server, got \(String(describing: outcome))")
            return
        }
        #expect(answer.kind == .accessDenied)
        #expect(!session.isAuthenticated)
    }

    @Test func refreshRotatesTheRefreshToken() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let session = django.session(client: "password", store: store)
        try await session.signIn(with: PasswordGrant(username: "alice", password: django.password, scopes: ["read"]))
        let old = try #require(store.current?.token)
        let oldRefresh = try #require(old.refreshToken)

        let info = try await session.refresh()
        #expect(info.hasRefreshToken)
        let new = try #require(store.current?.token)
        let newRefresh = try #require(new.refreshToken)
        #expect(newRefresh != oldRefresh, "ROTATE_REFRESH_TOKEN: the server issues a new refresh token, and the store holds it")
        #expect(new.accessToken != old.accessToken)
        #expect(try await session.currentCredential() == .accessToken(new.accessToken, scheme: "Bearer", expiresAt: new.expiresAt))

        #expect(try await django.introspect(old.accessToken).active == false)
        let introspection = try await django.introspect(new.accessToken)
        #expect(introspection.active)
        #expect(introspection.scope == "read")
        #expect(introspection.clientID == "clearance-password")
        #expect(introspection.username == "alice")

        // The rotated-out refresh token is refused by the server…
        do {
            _ = try await RefreshTokenGrant(refreshToken: oldRefresh).requestToken(from: session.server)
            Issue.record("the server accepted a rotated-out refresh token")
        } catch {
            guard case .server(let answer) = error else {
                Issue.record("expected invalid_grant, got \(error)")
                return
            }
            #expect(answer.kind == .invalidGrant)
        }
        // …and the stored one still works (and rotates again).
        try await session.refresh()
        let third = try #require(store.current?.token)
        #expect(third.refreshToken != newRefresh)
        #expect(try await django.introspect(third.accessToken).active)
        #expect(try await django.introspect(new.accessToken).active == false)
    }

    /// Issue 30: a sign-in over a session revokes the earlier refresh token at its server, in
    /// the same process and in a relaunched one: DOT then answers invalid_grant to it.
    @Test func signingInOverASessionRevokesTheEarlierRefreshToken() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let session = django.session(client: "password", store: store)
        try await session.signIn(with: PasswordGrant(username: "alice", password: django.password, scopes: ["read"]))
        let first = try #require(store.current?.token.refreshToken)
        try await session.signIn(with: PasswordGrant(username: "alice", password: django.password, scopes: ["read"]))
        let second = try #require(store.current?.token)
        #expect(second.refreshToken != first)
        try await Self.expectInvalidGrant(first, at: session)
        #expect(try await django.introspect(second.accessToken).active)

        let relaunched = django.session(client: "password", store: store)
        try await relaunched.signIn(with: PasswordGrant(username: "alice", password: django.password, scopes: ["read"]))
        try await Self.expectInvalidGrant(try #require(second.refreshToken), at: relaunched)
        #expect(try await django.introspect(try #require(store.current?.token.accessToken)).active)
        _ = await relaunched.signOut()
    }

    /// The same as a new user tries it: a second `clearance login` into the same store leaves
    /// DOT refusing the first refresh token.
    @Test func aSecondCommandLineLoginRevokesTheFirstRefreshToken() async throws {
        let django = try DjangoOAuthServer.require()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storeURL = directory.url.appendingPathComponent("session.json")
        let client = try #require(django.clients["password"])
        let arguments = [
            "login", "--token-url", django.tokenURL.absoluteString, "--revocation-url", django.url + "/o/revoke_token/",
            // The `=` form: a secret may begin with "-", which a separate argument would read as an option.
            "--client-id", client.id, "--client-secret=\(client.secret ?? "")", "--username", "alice", "--password-stdin",
            "--scope", "read", "--store", storeURL.path,
        ]
        let store = EncryptedFileSessionStore(fileURL: storeURL, key: try SessionStoreKey.loadOrCreate(file: directory.url.appendingPathComponent("session.key")))
        let first = try await ClearanceExecutable.run(arguments, input: django.password + "\n")
        #expect(first.status == 0, "\(first.stderr)")
        let firstRefresh = try #require(try await store.load()?.token.refreshToken)
        let second = try await ClearanceExecutable.run(arguments, input: django.password + "\n")
        #expect(second.status == 0, "\(second.stderr)")
        let current = try #require(try await store.load()?.token)
        #expect(current.refreshToken != firstRefresh)
        try await Self.expectInvalidGrant(firstRefresh, at: django.session(client: "password"))
        #expect(try await django.introspect(current.accessToken).active)
    }

    /// A refresh with `refreshToken` gets `invalid_grant`.
    static func expectInvalidGrant(_ refreshToken: String, at session: OAuth2Session) async throws {
        do {
            _ = try await RefreshTokenGrant(refreshToken: refreshToken).requestToken(from: session.server)
            Issue.record("the server accepted the earlier refresh token")
        } catch {
            guard case .server(let answer) = error else {
                Issue.record("expected invalid_grant, got \(error)")
                return
            }
            #expect(answer.kind == .invalidGrant)
        }
    }

    @Test func signOutRevokesAtTheServer() async throws {
        let django = try DjangoOAuthServer.require()
        let store = InMemorySessionStore()
        let session = django.session(client: "password", store: store)
        try await session.signIn(with: PasswordGrant(username: "alice", password: django.password, scopes: ["read"]))
        let token = try #require(store.current?.token)
        let refreshToken = try #require(token.refreshToken)
        #expect(try await django.introspect(token.accessToken).active)

        // RFC 7009 with token_type_hint=refresh_token: DOT revokes the refresh token and its access token.
        let outcome = await session.signOut()
        guard case .revoked(let hint) = outcome else {
            Issue.record("expected the server to revoke, got \(outcome)")
            return
        }
        #expect(hint == "refresh_token")
        #expect(!session.isAuthenticated)
        #expect(store.current == nil)
        #expect(try await django.introspect(token.accessToken).active == false)
        do {
            _ = try await RefreshTokenGrant(refreshToken: refreshToken).requestToken(from: session.server)
            Issue.record("the server accepted a revoked refresh token")
        } catch {
            guard case .server(let answer) = error else {
                Issue.record("expected invalid_grant, got \(error)")
                return
            }
            #expect(answer.kind == .invalidGrant)
        }

        // An access token on its own (token_type_hint=access_token).
        let service = django.session(client: "client_credentials", store: store)
        try await service.signIn(with: ClientCredentialsGrant(scopes: ["read"]))
        let serviceToken = try #require(store.current?.token.accessToken)
        #expect(try await django.introspect(serviceToken).active)
        try await service.server.revoke(serviceToken, hint: "access_token")
        #expect(try await django.introspect(serviceToken).active == false)
    }

    @Test func deviceAuthorizationGrant() async throws {
        let django = try DjangoOAuthServer.require()
        let logs = LogCapture()
        let store = InMemorySessionStore()
        let session = django.session(client: "device", store: store, logs: logs)
        let (prompts, promptSink) = AsyncStream<DeviceAuthorizationPrompt>.makeStream()
        let grant = DeviceAuthorizationGrant(scopes: ["read"]) { prompt in
            promptSink.yield(prompt)
            promptSink.finish()
        }
        // The sign-in and the user run side by side; the whole grant has a deadline.
        let info = try await within(.seconds(60), waitingFor: "the device grant to complete") {
            try await withThrowingTaskGroup(of: TokenInfo?.self) { group in
                group.addTask { try await session.signIn(with: grant) }
                group.addTask {
                    // The user: approves on the verification page once Clearance has polled at
                    // least once (DEVICE_FLOW_INTERVAL is 1 s), so `authorization_pending` is exercised.
                    for await prompt in prompts {
                        #expect(prompt.verificationURI.absoluteString == django.url + "/o/device/")
                        // Wait for the first `authorization_pending` answer (not a fixed delay: load varies).
                        try await eventually("Clearance's first authorization_pending answer", timeout: .seconds(15)) {
                            logs.text.contains("device authorization pending")
                        }
                        try await django.browser([
                            "device", prompt.verificationURI.absoluteString, "--user-code=\(prompt.userCode)",
                            "--username", "alice", "--password=\(django.password)",
                        ])
                    }
                    return nil
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let info = next { return info }
                }
                throw DjangoOAuthServer.Failure(description: "the device grant ended without a token")
            }
        }
        #expect(info.scopes == ["read"])
        #expect(info.hasRefreshToken)
        #expect(logs.text.contains("device authorization pending"), "Clearance saw authorization_pending from DOT and kept polling")

        let token = try #require(store.current?.token)
        let introspection = try await django.introspect(token.accessToken)
        #expect(introspection.active)
        #expect(introspection.scope == "read")
        #expect(introspection.clientID == "clearance-device")
        #expect(introspection.username == "alice")
    }
}

// MARK: - Sessions on the server

extension DjangoOAuthServer {
    /// A session for one of the seeded applications (`password`, `client_credentials`,
    /// `authorization_code`, `device`), with every DOT endpoint configured.
    func session(client name: String, authentication: ClientAuthenticationMethod? = nil, store: any SessionStore = InMemorySessionStore(), logs: LogCapture = LogCapture()) -> OAuth2Session {
        let client = clients[name] ?? Client(id: "missing-\(name)", secret: nil)
        let configuration = OAuth2SessionConfiguration(
            tokenEndpoint: tokenURL, clientID: client.id, clientSecret: client.secret, clientAuthentication: authentication,
            revocationEndpoint: URL(string: url + "/o/revoke_token/")!, authorizationEndpoint: URL(string: url + "/o/authorize/")!,
            deviceAuthorizationEndpoint: URL(string: url + "/o/device-authorization/")!, store: store, name: "django-\(name)",
            notificationCenter: nil, logger: logs.logger("clearance.oauth2"))
        return OAuth2Session(configuration: configuration)
    }
}
