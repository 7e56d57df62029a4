import ClearanceDevelopment
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance login` and `clearance session show|refresh|logout` against the development provider.
@Suite struct CommandLineTests {
    @Test func loginShowRefreshLogoutWithTheEncryptedStore() async throws {
        let provider = try await DevelopmentOAuth2Provider()
        let server = try await RunningServer.start(provider.router())
        defer { Task { await server.stop() } }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("config/session.json").path
        let base = server.baseURL.absoluteString

        let login = try await ClearanceExecutable.run([
            "login", "--token-url", "\(base)/oauth/token", "--revocation-url", "\(base)/oauth/revoke",
            "--client-id", "demo-client", "--client-secret", "demo-client-secret",
            "--username", "jane@example.com", "--password-stdin", "--store", store,
        ], input: "demo-password\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("state: authenticated"))
        #expect(login.stdout.contains("refresh token: present"))
        #expect(!login.stdout.contains("demo-password") && !login.stdout.contains("demo-client-secret"))
        let keyMode = try FileManager.default.attributesOfItem(atPath: directory.url.appendingPathComponent("config/session.key").path)[.posixPermissions] as? NSNumber
        #expect(keyMode?.intValue == 0o600)

        let show = try await ClearanceExecutable.run(["session", "show", "--store", store])
        #expect(show.status == 0)
        #expect(show.stdout.contains("token endpoint: \(base)/oauth/token"))
        #expect(show.stdout.contains("client: demo-client (client_secret_basic)"))
        #expect(!show.stdout.contains("eyJ"))

        let request = try await ClearanceExecutable.run(["request", "GET", "\(base)/oauth/me", "--session", "--store", store])
        #expect(request.status == 0, "\(request.stderr)")
        #expect(request.stdout.hasPrefix("HTTP 200"))
        #expect(!request.stdout.contains("eyJ"))

        let refresh = try await ClearanceExecutable.run(["session", "refresh", "--store", store])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(await provider.ledger.tokenRequests["refresh_token"] == 1)

        let logout = try await ClearanceExecutable.run(["session", "logout", "--store", store])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout.contains("revocation: revoked(refresh_token)"))
        #expect(await provider.ledger.liveRefreshTokens == 0)
        let after = try await ClearanceExecutable.run(["session", "show", "--store", store])
        #expect(after.stdout.contains("state: signed_out"))
    }

    @Test func loginRefusesAmbiguousModes() async throws {
        let result = try await ClearanceExecutable.run(["login", "--token-url", "https://a.example/token", "--client-id", "c", "--client-credentials", "--device", "--device-url", "https://a.example/device"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("exactly one"))
    }
}
