import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

extension DjangoOpenIDInteropTests {
    /// The built `clearance` against django-oauth-toolkit: sign-in (browser.py), show, userinfo,
    /// refresh, and logout whose end-session URL Django accepts.
    @Test func commandLineSignInShowUserInfoRefreshLogout() async throws {
        let django = try DjangoOAuthServer.require()
        let issuer = try #require(django.openID?.issuer.absoluteString)
        let cli = try CommandLineSession()
        try await withCleanup {
            let login = try await cli.login([
                "--issuer", issuer, "--client-id", django.clients["openid"]?.id ?? "missing", "--code",
                "--scope", "email", "--scope", "profile", "--revocation-url", django.url + "/o/revoke_token/",
            ]) { url in
                try await django.browser(["authorize", url.absoluteString, "--username", "alice", "--password=\(django.password)"])
            }
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.urlSeenWhileWaiting)

            let show = try await cli.run(["session", "show"])
            #expect(CommandLineSession.values("subject: ", in: show.stdout) == [django.aliceSubject ?? "?"])
            #expect(CommandLineSession.values("issuer: ", in: show.stdout) == [issuer])
            #expect(CommandLineSession.values("id token expires: ", in: show.stdout).count == 1)

            let userInfo = try await cli.run(["session", "userinfo"])
            #expect(userInfo.status == 0, "\(userInfo.stderr)")
            let object = try #require(JSONValue(parsing: userInfo.stdout.trimmingCharacters(in: .newlines)))
            #expect(userInfo.stdout.split(separator: "\n").count == 1)
            #expect(object["sub"] == .string(django.aliceSubject ?? "?") && object["email"] == .string("alice@example.com"))

            let refresh = try await cli.run(["session", "refresh"])
            #expect(refresh.status == 0, "\(refresh.stderr)")

            let logout = try await cli.run(["session", "logout", "--post-logout-redirect-uri", "http://127.0.0.1/signed-out", "--state", "cli"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(logout.stdout.contains("revocation: revoked(refresh_token)"))
            let url = try #require(CommandLineSession.lineAfter("Open this URL to sign out at the provider:", in: logout.stdout))
            let output = try await django.browser(["logout", url, "--username", "alice", "--password=\(django.password)"])
            #expect(output.hasPrefix("http://127.0.0.1/signed-out?state=cli\n"), "\(output)")
        } cleanup: {
            cli.remove()
        }
    }
}
