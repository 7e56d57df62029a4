import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Logging
import Testing

/// The guide "Coming from PodioKit" (`Sources/ClearanceOAuth2/Documentation.docc/ComingFromPodioKit.md`):
/// every snippet compiled and run, in order, against the development OAuth2 provider (PodioKit's
/// grants). The guide's Swift blocks are the marked regions below, line for line.
@Suite("Guide: coming from PodioKit", .timeLimit(.minutes(1)))
struct GuideComingFromPodioKitTests {
    static let guide = "Sources/ClearanceOAuth2/Documentation.docc/ComingFromPodioKit.md"

    @Test func signInAutomaticallyWatchTheStateAndRestore() async throws {
        let quiet = Logger(label: "guide", factory: { _ in SwiftLogNoOpLogHandler() })
        let server = try await RunningServer.start(try await DevelopmentOAuth2Provider(logger: quiet).router(), logger: quiet)
        let directory = try TemporaryDirectory()
        let podio = server.baseURL
        let (apiKey, apiSecret) = ("demo-client", "demo-client-secret")
        let (appID, appToken, password) = ("demo-app", "demo-app-token", "demo-password")
        let (sessionFile, keyFile) = (directory.file("session.json"), directory.file("session.key"))
        try await withCleanup {
            // snippet: begin
            let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
                tokenEndpoint: podio.appending(path: "/oauth/token"),
                clientID: apiKey, clientSecret: apiSecret,              // setupWithAPIKey:secret:
                headerScheme: "OAuth2",                                 // Authorization: OAuth2 <token>, as Podio expects
                store: EncryptedFileSessionStore(fileURL: sessionFile, key: try .loadOrCreate(file: keyFile))))
            try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: password))  // authenticateAsUserWithEmail:password:
            print(session.isAuthenticated)                              // [PodioKit isAuthenticated]: true
            try await session.signIn(with: ExtensionGrant.podioApp(appID: appID, appToken: appToken))        // authenticateAsAppWithID:token:
            // snippet: end
            #expect(session.isAuthenticated)
            #expect(FileManager.default.fileExists(atPath: sessionFile.path))

            // snippet: begin
            let automatic = OAuth2Session(configuration: OAuth2SessionConfiguration(
                tokenEndpoint: podio.appending(path: "/oauth/token"), clientID: apiKey, clientSecret: apiSecret,
                headerScheme: "OAuth2",
                automaticSignIn: ExtensionGrant.podioApp(appID: appID, appToken: appToken)))   // authenticateAutomaticallyAsAppWithID:token:
            let api = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("podio"), sources: ["podio": automatic]))
            let (me, _) = try await api.send(.get, podio.appending(path: "/oauth/me"))          // signs in first, once
            print(me.status, automatic.state)                           // 200 OK authenticated(TokenInfo(…))
            // snippet: end
            #expect(me.status == .ok && automatic.isAuthenticated)

            // snippet: begin
            let states = session.states                                 // or OAuth2Session.stateDidChangeNotification
            await session.signOut()                                     // revoked at the server when it can, store cleared
            for await state in states {                                 // PKTClientAuthenticationStateDidChangeNotification
                print(state)                                            // signed_out
                if !state.isAuthenticated { break }                     // show the login screen
            }
            // snippet: end
            #expect(!session.isAuthenticated)
            #expect(try await EncryptedFileSessionStore(fileURL: sessionFile, key: .loadOrCreate(file: keyFile)).load() == nil)

            try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: password))   // signed in again, saved
            // snippet: begin
            let relaunched = OAuth2Session(configuration: OAuth2SessionConfiguration(
                tokenEndpoint: podio.appending(path: "/oauth/token"), clientID: apiKey, clientSecret: apiSecret,
                headerScheme: "OAuth2",
                store: EncryptedFileSessionStore(fileURL: sessionFile, key: try .loadOrCreate(file: keyFile))))
            print(await relaunched.restore())                           // authenticated(…): the saved session, no sign-in
            // snippet: end
            #expect(relaunched.isAuthenticated)
            let restored = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("podio"), sources: ["podio": relaunched]))
            #expect(try await restored.send(.get, podio.appending(path: "/oauth/me")).0.status == .ok)   // the saved token works
        } cleanup: {
            directory.remove()
            await server.stop()
        }
    }

    /// The guide's Swift blocks are exactly this file's marked regions, in order.
    @Test func theGuideShowsThisCode() throws {
        let blocks = DocumentedSnippets.swiftBlocks(in: try DocumentedSnippets.packageFile(Self.guide))
        let regions = DocumentedSnippets.markedRegions(in: try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(!blocks.isEmpty && blocks == regions, "\(Self.guide) and this test drifted apart")
    }
}
