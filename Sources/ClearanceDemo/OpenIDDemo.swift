import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceWire
import Foundation
import HTTPTypes
import Logging

/// The demo's OpenID Connect part, on the development provider (an OpenID provider on
/// loopback): discovery and sign-in with the authorization code flow (the demo plays the
/// browser), the verified subject and UserInfo, a tampered ID token refused with nothing
/// stored, and sign-out with the provider's end-session URL.
struct OpenIDDemo {
    let report: DemoReport

    func run() async throws {
        report.begin("Sign in with OpenID Connect on the embedded development provider")
        let quiet = Logger.silent("clearance.demo.openid")
        let provider = try await DevelopmentOAuth2Provider(logger: quiet)
        let server = try await RunningServer.start(provider.router(), logger: quiet)
        let listener = try await LoopbackRedirectListener.start(logger: quiet)
        let issuer = server.baseURL
        let store = InMemorySessionStore()

        func session(transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared, store: any SessionStore) async throws -> (OAuth2Session, OpenIDProvider) {
            let openID = try await OpenIDProvider.discover(issuer: issuer, transport: transport, logger: quiet)
            let configuration = try await openID.sessionConfiguration(
                clientID: "demo-native", scopes: ["email", "profile"], store: store, notificationCenter: nil, logger: quiet)
            return (OAuth2Session(configuration: configuration), openID)
        }
        // The user's browser: follows the authorization URL to the loopback listener.
        let flow = OpenIDAuthorizationCodeFlow(receiver: listener, timeout: .seconds(30)) { url in try await Self.browse(url) }

        let (signedIn, openID) = try await session(store: store)
        await report.step("discover the provider, sign in in the \"browser\" (code + PKCE + nonce), ID token verified (ES256, key set fetched once)") {
            let info = try await signedIn.signIn(with: flow)
            let stored = try await store.load()
            let keySets = await provider.ledger.keySetRequests
            return (signedIn.isAuthenticated && stored?.identity != nil && keySets == 1,
                    "state: \(signedIn.state)\nstored: \(stored.map { "\($0.identity.map { "\($0)" } ?? "no identity")" } ?? "nothing")\nkey set fetched \(keySets) time(s); token info (no secrets): \(info)")
        }

        await report.step("the verified subject, and UserInfo about the same subject") {
            let identity = signedIn.identity
            let userInfo = try await signedIn.userInfo(from: openID)
            return (identity?.subject == "user:jane@example.com" && userInfo.subject == identity?.subject && identity?.email == userInfo.email,
                    "subject: \(identity?.subject ?? "none"), issuer: \(identity?.issuer ?? "none"), email: \(identity?.email ?? "none")\nUserInfo: \(userInfo.jsonText)")
        }

        await report.step("a tampered ID token (its sub changed in transit, signature kept) is refused: nothing stored") {
            let tamperedStore = InMemorySessionStore()
            let (tampered, _) = try await session(transport: TamperingTransport(), store: tamperedStore)
            let outcome: String
            do {
                try await tampered.signIn(with: flow)
                outcome = "signed in (it should not have)"
            } catch let error as OAuth2Error {
                outcome = error.identityError?.qualifiedCode ?? error.qualifiedCode
            }
            let stored = try await tamperedStore.load()
            return (outcome == "openid.bad_signature" && stored == nil && !tampered.isAuthenticated,
                    "sign-in refused: \(outcome); stored: \(stored == nil ? "nothing" : "a session")")
        }

        await report.step("sign out: tokens revoked, store cleared, the provider accepts the end-session URL") {
            let signOut = await signedIn.signOut(at: openID, postLogoutRedirectURI: listener.redirectURI, state: "demo-signed-out")
            guard let endSession = signOut.endSession else { return (false, "no end-session URL; revocation: \(signOut.revocation)") }
            let before = await provider.ledger.endSessions
            let (status, location) = try await Self.open(endSession.url)
            let accepted = await provider.ledger.endSessions - before == 1
            let stored = try await store.load()
            return (accepted && status == 302 && location.contains("state=demo-signed-out") && stored == nil && !signedIn.isAuthenticated,
                    "revocation: \(signOut.revocation)\nend-session URL → HTTP \(status), back to the app with its state: \(location.contains("state=demo-signed-out"))")
        }

        await listener.stop()
        await server.stop()
    }

    /// A browser that follows redirects (to the loopback listener at the end).
    static func browse(_ url: URL) async throws {
        var next: URL? = url
        var hops = 0
        while let current = next, hops < 5 {
            hops += 1
            let (status, location) = try await open(current)
            next = (300..<400).contains(status) ? URL(string: location, relativeTo: current)?.absoluteURL : nil
        }
    }

    /// One GET: the status and the `Location`.
    static func open(_ url: URL) async throws -> (Int, String) {
        let (response, _) = try await AsyncHTTPClientHTTPTransport.shared.send(HTTPRequest(method: .get, url: url), body: nil)
        return (response.status.code, response.headerFields[.location] ?? "")
    }
}
