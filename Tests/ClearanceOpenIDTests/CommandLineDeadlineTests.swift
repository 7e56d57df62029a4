import ClearanceDevelopment
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// Issue 30 from the command line: `--timeout` bounds `clearance request`, `login`, `session
/// refresh` and `session userinfo` against a server that stalls, each failing with one clear
/// line; `clearance login --token-url B` over a session issued by A never sends A's tokens to B.
@Suite("Command line deadlines and provenance")
struct CommandLineDeadlineTests {
    /// How long a command may run past its two-second deadline (starting the process included).
    static var slack: Duration { TestTiming.slowed(.seconds(4)) }

    @Test func requestWithATimeoutEndsWithOneLine() async throws {
        try await withStallingServer { server in
            for transport in ["ahc", "urlsession"] {
                let started = ContinuousClock.now
                let result = try await ClearanceExecutable.run(["request", "GET", "\(server.base)/half/page", "--timeout", "2", "--transport", transport])
                let elapsed = ContinuousClock.now - started
                #expect(result.status != 0)
                #expect(elapsed < .seconds(2) + Self.slack, "\(transport): \(elapsed)")
                let lines = Self.lines(result.stderr)
                #expect(lines.count == 1, "\(transport): \(result.stderr)")
                #expect(lines.first?.hasPrefix("error: transport.timedOut: \(server.base)/half/page did not answer in full within 2 s") == true, "\(result.stderr)")
            }
        }
    }

    @Test func loginAtAStallingProviderEndsWithOneLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withStallingServer { server in
            let started = ContinuousClock.now
            let result = try await ClearanceExecutable.run([
                "login", "--issuer", "\(server.base)/head", "--client-id", "client", "--code", "--timeout", "2",
                "--store", directory.url.appendingPathComponent("session.json").path,
            ])
            #expect(result.status != 0)
            #expect(ContinuousClock.now - started < .seconds(2) + Self.slack)
            let lines = Self.lines(result.stderr)
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.hasPrefix("error: openid.timed_out: ") == true, "\(result.stderr)")
            #expect(lines.first?.contains("\(server.base)/head/.well-known/openid-configuration") == true, "\(result.stderr)")
        }
    }

    @Test func sessionRefreshAndUserInfoWithATimeoutEndWithOneLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withStallingServer { server in
            let storePath = directory.url.appendingPathComponent("session.json")
            let store = EncryptedFileSessionStore(fileURL: storePath, key: try SessionStoreKey.loadOrCreate(file: directory.url.appendingPathComponent("session.key")))
            let issuer = "\(server.base)/ok/head"
            try await store.save(StoredSession(
                token: OAuth2Token(accessToken: "an access token", refreshToken: "a refresh token", expiresAt: Date().addingTimeInterval(3_600), obtainedAt: Date()),
                endpoints: OAuth2Endpoints(token: server.url("/head/token")), client: OAuth2Client(id: "client"),
                identity: SessionIdentity(idToken: "an id token", claims: ["iss": .string(issuer), "sub": .string("alice")])))

            for (command, code, endpoint) in [("refresh", "oauth2.timed_out", "/head/token"), ("userinfo", "openid.timed_out", "/head/userinfo")] {
                let started = ContinuousClock.now
                let result = try await ClearanceExecutable.run(["session", command, "--store", storePath.path, "--timeout", "2"])
                #expect(result.status != 0, "\(command)")
                #expect(ContinuousClock.now - started < .seconds(2) + Self.slack, "\(command)")
                // One error line (the session's own log may add its warning).
                let lines = Self.lines(result.stderr).filter { $0.hasPrefix("error: ") }
                #expect(lines.count == 1, "\(command): \(result.stderr)")
                #expect(lines.first?.hasPrefix("error: \(code): ") == true, "\(command): \(result.stderr)")
                #expect(lines.first?.contains(server.base + endpoint) == true, "\(command): \(result.stderr)")
                #expect(!result.stderr.contains("a refresh token") && !result.stderr.contains("an access token"))
            }
        }
    }

    /// `clearance login --token-url B` over a store issued by A: B never sees A's tokens; A's
    /// refresh token is revoked at A, where the store recorded its revocation endpoint.
    @Test func loginAtAnotherServerNeverSendsTheStoredTokensThere() async throws {
        let providerA = try await DevelopmentOAuth2Provider()
        let providerB = try await DevelopmentOAuth2Provider()
        let serverA = try await RunningServer.start(providerA.router())
        let serverB = try await RunningServer.start(providerB.router())
        defer { Task { await serverA.stop(); await serverB.stop() } }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("session.json").path
        func login(_ base: String) async throws -> ChildProcess.Output {
            try await ClearanceExecutable.run([
                "login", "--token-url", "\(base)/oauth/token", "--revocation-url", "\(base)/oauth/revoke",
                "--client-id", "demo-client", "--client-secret", "demo-client-secret",
                "--username", "jane@example.com", "--password-stdin", "--store", store,
            ], input: "demo-password\n")
        }
        let first = try await login(serverA.baseURL.absoluteString)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await providerA.ledger.liveRefreshTokens == 1)

        let second = try await login(serverB.baseURL.absoluteString)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(await providerB.ledger.tokenRequests == ["password": 1], "B saw only its own sign-in")
        #expect(await providerB.ledger.revocations == 0, "A's refresh token never went to B")
        #expect(await providerA.ledger.revocations == 1, "A's refresh token was revoked at A")
        #expect(await providerA.ledger.liveRefreshTokens == 0)
        let show = try await ClearanceExecutable.run(["session", "show", "--store", store])
        #expect(show.stdout.contains("token endpoint: \(serverB.baseURL.absoluteString)/oauth/token"))
    }

    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
