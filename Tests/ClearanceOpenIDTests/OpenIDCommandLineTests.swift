import ClearanceDevelopment
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

/// `clearance login --issuer … --code` and `clearance session show|refresh|userinfo|logout`,
/// the built executable against the development provider and the hostile provider (Django in
/// `DjangoOpenIDInteropTests`).
@Suite("OpenID Connect on the command line")
struct OpenIDCommandLineTests {
    @Test func signInShowRefreshUserInfoAndLogoutAtTheDevelopmentProvider() async throws {
        let provider = try await DevelopmentOAuth2Provider()
        let server = try await RunningServer.start(provider.router())
        let cli = try CommandLineSession()
        try await withCleanup {
            let issuer = server.baseURL.absoluteString
            let login = try await cli.login(["--issuer", issuer, "--client-id", "demo-native", "--code", "--scope", "email"]) { url in
                let landed = try await Browser.follow(url)
                #expect(landed.status == 200)
            }
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.urlSeenWhileWaiting, "the sign-in URL must reach a pipe before the command ends")
            #expect(CommandLineSession.values("subject: ", in: login.stdout) == ["user:jane@example.com"])

            let show = try await cli.run(["session", "show"])
            #expect(show.status == 0)
            #expect(CommandLineSession.values("subject: ", in: show.stdout) == ["user:jane@example.com"])
            #expect(CommandLineSession.values("issuer: ", in: show.stdout) == [issuer])
            let expires = try #require(CommandLineSession.values("id token expires: ", in: show.stdout).first)
            #expect(try Date(expires, strategy: .iso8601) > Date(), "ISO 8601 with its zone, as the expires: line")
            #expect(CommandLineSession.values("expires: ", in: show.stdout).count == 1)

            let userInfo = try await cli.run(["session", "userinfo"])
            #expect(userInfo.status == 0, "\(userInfo.stderr)")
            let lines = userInfo.stdout.split(separator: "\n")
            #expect(lines.count == 1)
            let object = try #require(JSONValue(parsing: String(lines.first ?? "")))
            #expect(object["sub"] == .string("user:jane@example.com") && object["email"] == .string("jane@example.com"))

            let refresh = try await cli.run(["session", "refresh"])
            #expect(refresh.status == 0, "\(refresh.stderr)")
            #expect(CommandLineSession.values("subject: ", in: refresh.stdout) == ["user:jane@example.com"])
            #expect(await provider.ledger.tokenRequests["refresh_token"] == 1)

            let logout = try await cli.run(["session", "logout", "--post-logout-redirect-uri", "http://127.0.0.1:9/bye", "--state", "cli-state"])
            #expect(logout.status == 0, "\(logout.stderr)")
            let out = logout.stdout.split(separator: "\n").map(String.init)
            let revoked = try #require(out.firstIndex(of: "revocation: revoked(refresh_token)"))
            let prompt = try #require(out.firstIndex(of: "Open this URL to sign out at the provider:"))
            #expect(revoked < prompt && prompt + 1 < out.count, "the URL comes after revoking")
            let endSession = try #require(URL(string: out[prompt + 1]))
            #expect(endSession.absoluteString.hasPrefix(issuer + "/oauth/logout?id_token_hint="))
            let answer = try await Browser.follow(endSession, maximumHops: 1)
            let endSessions = await provider.ledger.endSessions
            #expect(answer.status == 302 && endSessions == 1, "the provider accepts the end-session URL")
            #expect(await provider.ledger.liveRefreshTokens == 0)

            let after = try await cli.run(["session", "show"])
            #expect(after.stdout.contains("state: signed_out") && !after.stdout.contains("subject:"))
            // Only the end-session URL carries the ID token (as id_token_hint).
            for output in [login.stdout, login.stderr, show.stdout, userInfo.stdout, refresh.stdout, refresh.stderr, after.stdout, logout.stderr] {
                #expect(!output.contains("eyJ"), "a token in the output")
            }
            #expect(logout.stdout.split(separator: "\n").filter { $0.contains("eyJ") } == [Substring(endSession.absoluteString)], "the ID token only in the end-session URL")
        } cleanup: {
            cli.remove()
            await server.stop()
        }
    }

    @Test("clearance serve's development provider is an OpenID provider: clearance login --issuer signs in at it")
    func signInAtClearanceServe() async throws {
        let serve = try ClearanceExecutable.start(["serve", "--port", "0", "--log-level", "warning"])
        let cli = try CommandLineSession()
        try await withCleanup {
            let ready = try #require(await serve.line(timeout: .seconds(30)) { $0.hasPrefix("ready ") }, "no ready line: \(serve.stderr)")
            let issuer = try #require(ready.split(separator: " ").first { $0.hasPrefix("http=") }.map { String($0.dropFirst(5)) })
            #expect(serve.stdout.contains("development OpenID provider (DEVELOPMENT ONLY)"))
            let login = try await cli.login(["--issuer", issuer, "--client-id", "demo-native", "--code"]) { url in
                try await Browser.follow(url)
            }
            #expect(login.status == 0, "\(login.stderr)")
            let show = try await cli.run(["session", "show"])
            #expect(CommandLineSession.values("subject: ", in: show.stdout) == ["user:jane@example.com"])
            #expect(CommandLineSession.values("issuer: ", in: show.stdout) == [issuer])
        } cleanup: {
            cli.remove()
            await serve.stop(.interrupt(grace: .seconds(10)))
        }
    }

    @Test("a refused sign-in exits 1 with error: <code>: <message>, stores nothing, shows no subject")
    func refusedSignIns() async throws {
        let cases: [(String, HostileOpenIDProvider.Behaviour, String)] = [
            ("nonce", behaviour { $0.signIn = HostileTokenRecipe { $0["nonce"] = .string("other") } }, "openid.nonce_mismatch"),
            ("signature", behaviour { $0.signIn = HostileTokenRecipe(signature: .corrupted(.ec)) }, "openid.bad_signature"),
            ("none", behaviour { $0.signIn = HostileTokenRecipe(signature: .none) }, "openid.algorithm_not_allowed"),
            ("audience", behaviour { $0.signIn = HostileTokenRecipe { $0["aud"] = .string("other") } }, "openid.audience_mismatch"),
        ]
        for (name, refused, code) in cases {
            let provider = try await HostileOpenIDProvider.start(refused)
            let cli = try CommandLineSession()
            try await withCleanup {
                let login = try await cli.login(["--issuer", provider.issuer.absoluteString, "--client-id", provider.clientID, "--code"]) { url in
                    try await Browser.follow(url)
                }
                #expect(login.status == 1, "\(name)")
                #expect(CommandLineSession.values("error: \(code): ", in: login.stderr).count == 1, "\(name): \(login.stderr)")
                let show = try await cli.run(["session", "show"])
                #expect(show.stdout.contains("state: signed_out") && !show.stdout.contains("subject:"), "\(name)")
                for token in provider.counters.issued { #expect(!login.stdout.contains(token) && !login.stderr.contains(token)) }
            } cleanup: {
                cli.remove()
                await provider.stop()
            }
        }
    }

    @Test func aDiscoveryDocumentWithAnotherIssuerStopsLoginBeforeAnyURL() async throws {
        let provider = try await HostileOpenIDProvider.start(behaviour { $0.discoveryIssuer = "https://elsewhere.example.com" })
        let cli = try CommandLineSession()
        try await withCleanup {
            let login = try await cli.login(["--issuer", provider.issuer.absoluteString, "--client-id", provider.clientID, "--code"]) { _ in
                Issue.record("an authorization URL was printed")
            }
            #expect(login.status == 1)
            #expect(CommandLineSession.values("error: openid.discovery_issuer_mismatch: ", in: login.stderr).count == 1, "\(login.stderr)")
            #expect(!login.stdout.contains("Open this URL"))
            #expect(provider.counters.authorize == 0 && provider.counters.tokenRequests.isEmpty)
        } cleanup: {
            cli.remove()
            await provider.stop()
        }
    }

    @Test func aRefreshWithAnotherSubjectEndsTheStoredSession() async throws {
        let provider = try await HostileOpenIDProvider.start()
        let cli = try CommandLineSession()
        try await withCleanup {
            let login = try await cli.login(["--issuer", provider.issuer.absoluteString, "--client-id", provider.clientID, "--code"]) { url in
                try await Browser.follow(url)
            }
            #expect(login.status == 0, "\(login.stderr)")
            provider.behave { $0.refresh = HostileTokenRecipe { $0["sub"] = .string("someone-else") } }
            let refresh = try await cli.run(["session", "refresh"])
            #expect(refresh.status == 1)
            #expect(CommandLineSession.values("error: openid.subject_changed: ", in: refresh.stderr).count == 1, "\(refresh.stderr)")
            #expect(refresh.stdout.contains("state: signed_out"))
            let show = try await cli.run(["session", "show"])
            #expect(show.stdout.contains("state: signed_out") && !show.stdout.contains("subject:"))
        } cleanup: {
            cli.remove()
            await provider.stop()
        }
    }
}
