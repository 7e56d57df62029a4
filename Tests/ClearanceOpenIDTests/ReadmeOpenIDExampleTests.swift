import Clearance
import ClearanceDevelopment
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Logging
import Testing

/// The "Sign in with OpenID Connect" snippet of `ClearanceOpenID`'s landing page, compiled and run against the development
/// provider (the browser follows the URLs). Keep the two in step.
@Suite("README OpenID Connect example")
struct ReadmeOpenIDExampleTests {
    @Test func signInWithOpenIDConnect() async throws {
        let quiet = Logger(label: "readme", factory: { _ in SwiftLogNoOpLogHandler() })
        let development = try await DevelopmentOAuth2Provider(logger: quiet)
        let server = try await RunningServer.start(development.router(), logger: quiet)
        let issuer = server.baseURL
        let opened = OpenedURLs()
        @Sendable func openInBrowser(_ url: URL) async throws {
            opened.append(url)
            try await Browser.follow(url)
        }
        try await withCleanup {
            let directory = try TemporaryDirectory()
            try await withCleanup {
                try await Self.example(issuer: issuer, directory: directory, openInBrowser: openInBrowser, opened: opened, development: development)
            } cleanup: {
                directory.remove()
            }
        } cleanup: {
            await server.stop()
        }
    }

    /// The README's snippet, then what it must have done.
    private static func example(
        issuer: URL, directory: TemporaryDirectory, openInBrowser: @escaping @Sendable (URL) async throws -> Void, opened: OpenedURLs,
        development: DevelopmentOAuth2Provider
    ) async throws {
        let sessionFile = directory.file("session.json")
        let keyFile = directory.file("session.key")
        do {
            // snippet: begin
            let provider = try await OpenIDProvider.discover(issuer: issuer)      // its issuer must be exactly this one
            let session = OAuth2Session(configuration: try await provider.sessionConfiguration(
                clientID: "demo-native", scopes: ["email", "profile"],           // openid is added
                store: EncryptedFileSessionStore(fileURL: sessionFile, key: try .loadOrCreate(file: keyFile))))
            let listener = try await LoopbackRedirectListener.start()             // http://127.0.0.1:<port>/callback
            do {
                try await session.signIn(with: OpenIDAuthorizationCodeFlow(receiver: listener) { url in
                    try await openInBrowser(url)                                   // PKCE, state and a fresh nonce
                })
            } catch {                                                             // signIn throws OAuth2Error
                print(error.identityError ?? error)          // openid.nonce_mismatch: …: each check its own code; nothing stored
            }
            await listener.stop()                                                 // the redirect came, or the sign-in failed
            print(session.identity?.subject ?? "signed out")                      // the verified sub (claims, ID token: stored encrypted)
            let userInfo = try await session.userInfo(from: provider)             // its sub must be the ID token's
            let signOut = await session.signOut(at: provider)                     // revoked, store cleared
            if let url = signOut.endSession?.url { try await openInBrowser(url) } // id_token_hint, client_id: ends it at the provider
            // snippet: end

            #expect(userInfo.subject == "user:jane@example.com" && userInfo.email == "jane@example.com")
            guard case .revoked = signOut.revocation else {
                Issue.record("expected a revocation, got \(signOut.revocation)")
                return
            }
            #expect(opened.all.count == 2 && opened.all.last?.path == "/oauth/logout")
            #expect(await development.ledger.endSessions == 1)
            let stored = try await EncryptedFileSessionStore(fileURL: sessionFile, key: .loadOrCreate(file: keyFile)).load()
            #expect(!session.isAuthenticated && stored == nil)
        }
    }
}
