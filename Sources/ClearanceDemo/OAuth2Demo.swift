import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceServer
import ClearanceDevelopment
import Foundation
import HTTPTypes
import Logging

/// The demo's OAuth2 part, on the development provider: sign in as a user and as an app,
/// automatic sign-in on first call, a forced expiry with proactive refresh, a revoked refresh
/// token ending the session, and a restart restoring the session from the encrypted store.
struct OAuth2Demo {
    let report: DemoReport

    /// The system clock, moved forward on demand (to force an expiry without waiting).
    final class ShiftableClock: OAuth2Clock {
        private let offset = Locked(Duration.zero)
        private let origin = ContinuousClock.now
        var now: Date { Date().addingTimeInterval(Double(offset.withLock { $0 }.components.seconds)) }
        var uptime: Duration { ContinuousClock.now - origin + offset.withLock { $0 } }
        func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
        func advance(by duration: Duration) { offset.withLock { $0 += duration } }
    }

    func run() async throws {
        report.begin("OAuth2 sessions (PodioKit-style) on the embedded development provider")
        let quiet = Logger.silent("clearance.demo.oauth2")
        let provider = try await DevelopmentOAuth2Provider(logger: quiet)
        let server = try await RunningServer.start(provider.router(), logger: quiet)
        let base = server.baseURL
        let me = base.appending(path: "/oauth/me")
        let directory = FileManager.default.temporaryDirectory.appending(path: "clearance-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeKey = SessionStoreKey.generate()
        let storeURL = directory.appending(path: "session.json")

        func configuration(store: any SessionStore = InMemorySessionStore(), clock: any OAuth2Clock = SystemOAuth2Clock(),
                           automaticSignIn: (any OAuth2Grant)? = nil, scheme: String = "Bearer") -> OAuth2SessionConfiguration {
            OAuth2SessionConfiguration(
                tokenEndpoint: base.appending(path: "/oauth/token"), clientID: "demo-client", clientSecret: "demo-client-secret",
                revocationEndpoint: base.appending(path: "/oauth/revoke"), headerScheme: scheme, store: store,
                automaticSignIn: automaticSignIn, clock: clock, notificationCenter: nil, logger: quiet)
        }
        func call(_ session: OAuth2Session) async throws(AuthorizationError) -> HTTPResponse.Status {
            let authorizer = try RequestAuthorizer(policy: .always("session"), sources: ["session": session])
            return try await AuthorizedClient(authorizer: authorizer).send(.get, me).0.status
        }

        await report.step("sign in as a user (password grant), then call the API with the session's token") {
            let session = OAuth2Session(configuration: configuration())
            let info = try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
            let status = try await call(session)
            return (session.isAuthenticated && status == .ok, "state: \(session.state)\nGET /oauth/me → HTTP \(status.code)\ntoken info (no secrets): \(info)")
        }

        await report.step("sign in as an app (PodioKit's grant_type=app), sent with the `OAuth2` scheme") {
            let session = OAuth2Session(configuration: configuration(scheme: "OAuth2"))
            _ = try await session.signIn(with: ExtensionGrant.podioApp(appID: "demo-app", appToken: "demo-app-token"))
            let credential = try await session.credential()
            let status = try await call(session)
            return (credential.kind == .accessToken(scheme: "OAuth2") && status == .ok, "credential: \(credential)\nGET /oauth/me → HTTP \(status.code)")
        }

        await report.step("automatic sign-in on the first call: 50 concurrent calls, one sign-in") {
            let before = await provider.ledger.tokenRequests["app"] ?? 0
            let session = OAuth2Session(configuration: configuration(automaticSignIn: ExtensionGrant.podioApp(appID: "demo-app", appToken: "demo-app-token")))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<50 { group.addTask { try await call(session) } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            let signIns = (await provider.ledger.tokenRequests["app"] ?? 0) - before
            return (statuses.allSatisfy { $0 == .ok } && signIns == 1, "\(statuses.count) calls answered 200; sign-ins at the server: \(signIns)")
        }

        await report.step("forced expiry: the session refreshes before it uses the token (proactive, one refresh)") {
            let clock = ShiftableClock()
            let session = OAuth2Session(configuration: configuration(clock: clock))
            _ = try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
            let first = try await session.credential()
            let before = await provider.ledger.tokenRequests["refresh_token"] ?? 0
            clock.advance(by: .seconds(3_600))  // the token's whole lifetime
            async let a = session.credential()
            async let b = session.credential()
            let (second, third) = try await (a, b)
            let refreshes = (await provider.ledger.tokenRequests["refresh_token"] ?? 0) - before
            let status = try await call(session)
            return (first != second && second == third && refreshes == 1 && status == .ok,
                    "token replaced: \(first != second); refreshes at the server: \(refreshes); GET /oauth/me → HTTP \(status.code)")
        }

        await report.step("a revoked refresh token ends the session: signed out, event, store cleared") {
            let store = InMemorySessionStore()
            let clock = ShiftableClock()
            let session = OAuth2Session(configuration: configuration(store: store, clock: clock))
            _ = try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
            // Another copy of the session (say, another device) signs out: that revokes the shared refresh token.
            let other = OAuth2Session(configuration: configuration(store: InMemorySessionStore(try await store.load())))
            _ = await other.restore()
            let revocation = await other.signOut()
            let events = session.events
            clock.advance(by: .seconds(3_600))
            let failure: String
            do {
                _ = try await session.credential()
                failure = "none"
            } catch {
                failure = AuthorizationError(wrapping: error).qualifiedCode
            }
            var ended = false
            for await event in events {
                if case .sessionEnded = event { ended = true; break }
            }
            let stored = try await store.load()
            return (!session.isAuthenticated && ended && stored == nil,
                    "revocation by the other copy: \(revocation)\nnext use: \(failure); state: \(session.state); store cleared: \(stored == nil)")
        }

        await report.step("restart: a new session restores itself from the encrypted file store") {
            let store = EncryptedFileSessionStore(fileURL: storeURL, key: storeKey)
            let session = OAuth2Session(configuration: configuration(store: store))
            _ = try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
            // "Relaunch": nothing in memory survives, only the file.
            let relaunched = OAuth2Session(configuration: configuration(store: EncryptedFileSessionStore(fileURL: storeURL, key: storeKey)))
            let restored = await relaunched.restore()
            let status = try await call(relaunched)
            let attributes = try FileManager.default.attributesOfItem(atPath: storeURL.path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            return (restored.isAuthenticated && status == .ok && mode == 0o600,
                    "restored state: \(restored)\nGET /oauth/me → HTTP \(status.code); store file mode \(String(mode, radix: 8))")
        }

        await server.stop()
    }
}
