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
        try await withCleanup {
            try await CommandLineSession.with { cli in
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
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test("clearance serve's development provider is an OpenID provider: clearance login --issuer signs in at it")
    func signInAtClearanceServe() async throws {
        let serve = try ClearanceExecutable.start(["serve", "--development", "--port", "0", "--log-level", "warning"])
        try await withCleanup {
            try await CommandLineSession.with { cli in
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
            }
        } cleanup: {
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
            try await withHostileProvider(refused) { provider, cli in
                let login = try await cli.login(at: provider)
                #expect(login.status == 1, "\(name)")
                #expect(CommandLineSession.values("error: \(code): ", in: login.stderr).count == 1, "\(name): \(login.stderr)")
                try await cli.expectSignedOutWithoutSubject(name)
                for token in provider.counters.issued { #expect(!login.stdout.contains(token) && !login.stderr.contains(token)) }
                #expect(provider.counters.liveRefreshTokens.isEmpty, "\(name): the refused sign-in's refresh token was revoked")
            }
        }
    }

    @Test("a refused sign-in over a stored session leaves no subject to show: the earlier session is signed out at its own provider")
    func aRefusedSignInEndsTheEarlierSession() async throws {
        try await withHostileProvider { earlier, cli in
            let first = try await cli.login(at: earlier)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(CommandLineSession.values("subject: ", in: try await cli.run(["session", "show"]).stdout) == ["hostile-subject-1"])

            let refusing = try await HostileOpenIDProvider.start(behaviour {
                $0.subject = "someone-else"
                $0.signIn = HostileTokenRecipe { $0["nonce"] = .string("replayed") }
            })
            try await withCleanup {
                let login = try await cli.login(at: refusing)
                #expect(login.status == 1)
                #expect(CommandLineSession.values("error: openid.nonce_mismatch: ", in: login.stderr).count == 1, "\(login.stderr)")
                #expect(login.stdout.contains("earlier session: signed out (revocation: revoked(refresh_token))"), "\(login.stdout)")
                try await cli.expectSignedOutWithoutSubject()
                // Revoked where it came from, never sent to the provider that refused.
                #expect(earlier.counters.liveRefreshTokens.isEmpty && earlier.counters.revocations == 1)
                #expect(refusing.counters.revoked.allSatisfy { !earlier.counters.issued.contains($0) })
            } cleanup: {
                await refusing.stop()
            }
        }
    }

    @Test func aDiscoveryDocumentWithAnotherIssuerStopsLoginBeforeAnyURL() async throws {
        try await withHostileProvider(behaviour { $0.discoveryIssuer = "https://elsewhere.example.com" }) { provider, cli in
            let login = try await cli.login(["--issuer", provider.issuer.absoluteString, "--client-id", provider.clientID, "--code"]) { _ in
                Issue.record("an authorization URL was printed")
            }
            #expect(login.status == 1)
            #expect(CommandLineSession.values("error: openid.discovery_issuer_mismatch: ", in: login.stderr).count == 1, "\(login.stderr)")
            #expect(!login.stdout.contains("Open this URL"))
            #expect(provider.counters.authorize == 0 && provider.counters.tokenRequests.isEmpty)
        }
    }

    @Test func aRefreshWithAnotherSubjectEndsTheStoredSession() async throws {
        try await withHostileProvider { provider, cli in
            let login = try await cli.login(at: provider)
            #expect(login.status == 0, "\(login.stderr)")
            provider.behave { $0.refresh = HostileTokenRecipe { $0["sub"] = .string("someone-else") } }
            let refresh = try await cli.run(["session", "refresh"])
            #expect(refresh.status == 1)
            #expect(CommandLineSession.values("error: openid.subject_changed: ", in: refresh.stderr).count == 1, "\(refresh.stderr)")
            #expect(refresh.stdout.contains("state: signed_out"))
            try await cli.expectSignedOutWithoutSubject()
            #expect(provider.counters.liveRefreshTokens.isEmpty, "the discarded refresh token was revoked")
        }
    }

    @Test("a stored identity whose verifier cannot be made again fails the commands, never silently goes on without it")
    func aStoredIdentityThatCannotBeVerifiedAgainFails() async throws {
        try await withHostileProvider { provider, cli in
            let login = try await cli.login(at: provider)
            #expect(login.status == 0, "\(login.stderr)")
            // The stored identity now names an issuer the transport rules refuse (plain http, not loopback).
            let store = try cli.sessionStore
            var stored = try #require(try await store.load())
            stored.identity?.claims["iss"] = .string("http://id.example.com")
            try await store.save(stored)

            for command in [["session", "refresh"], ["session", "userinfo"]] {
                let output = try await cli.run(command)
                #expect(output.status == 1, "\(command)")
                #expect(CommandLineSession.values("error: openid.stored_identity_unusable: ", in: output.stderr).count == 1, "\(command): \(output.stderr)")
            }
            #expect(provider.counters.tokenRequests["refresh_token"] == nil, "nothing refreshed without the verifier")
            // Logout still signs out here, then says why there is no end-session URL.
            let logout = try await cli.run(["session", "logout"])
            #expect(logout.status == 1)
            #expect(logout.stdout.contains("state: signed_out") && logout.stdout.contains("revocation: revoked(refresh_token)"), "\(logout.stdout)")
            #expect(CommandLineSession.values("error: openid.stored_identity_unusable: ", in: logout.stderr).count == 1, "\(logout.stderr)")
            #expect(try await store.load() == nil)
        }
    }

    @Test("--allow-hs256-id-tokens without a client secret is a usage error (exit 64), not a silent refusal later")
    func hs256NeedsAClientSecret() async throws {
        try await withHostileProvider { provider, cli in
            let output = try await cli.run(["login", "--issuer", provider.issuer.absoluteString, "--client-id", provider.clientID, "--code", "--allow-hs256-id-tokens"])
            #expect(output.status == 64, "\(output.stderr)")
            #expect(output.stderr.contains("--allow-hs256-id-tokens needs the client secret"), "\(output.stderr)")
            #expect(provider.counters.requests.isEmpty, "nothing asked of the provider")
        }
    }

    /// Runs `body` with a hostile provider and a command-line session, both removed afterwards
    /// whatever happens.
    private func withHostileProvider(
        _ behaviour: HostileOpenIDProvider.Behaviour = .init(), _ body: (HostileOpenIDProvider, CommandLineSession) async throws -> Void
    ) async throws {
        let provider = try await HostileOpenIDProvider.start(behaviour)
        try await withCleanup {
            try await CommandLineSession.with { cli in try await body(provider, cli) }
        } cleanup: {
            await provider.stop()
        }
    }
}
