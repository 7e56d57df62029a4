import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceServer
import Foundation
import HTTPTypes
import Logging
import Testing

/// The README's OAuth2 snippet (also in `Clearance`'s tour), compiled and run against the development
/// provider; `DocumentationTests` checks the documents show the marked region.
@Suite("README OAuth2 example")
struct ReadmeOAuth2ExampleTests {
    @Test func podioStyleSession() async throws {
        let quiet = Logger(label: "readme", factory: { _ in SwiftLogNoOpLogHandler() })
        let server = try await RunningServer.start(try await DevelopmentOAuth2Provider(logger: quiet).router(), logger: quiet)
        let provider = server.baseURL
        let directory = FileManager.default.temporaryDirectory.appending(path: "readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sessionFile = directory.appending(path: "session.json")
        let keyFile = directory.appending(path: "session.key")

        // snippet: begin
        let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: provider.appending(path: "/oauth/token"),
            clientID: "demo-client", clientSecret: "demo-client-secret",
            headerScheme: "OAuth2",                                   // Podio-style; Bearer by default
            store: EncryptedFileSessionStore(fileURL: sessionFile, key: try .loadOrCreate(file: keyFile)),
            automaticSignIn: ExtensionGrant.podioApp(appID: "demo-app", appToken: "demo-app-token")))
        let podio = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("podio"), sources: ["podio": session]))
        let (me, _) = try await podio.send(.get, provider.appending(path: "/oauth/me"))   // signs in first, once
        print(me.status, session.state)                                // 200 OK authenticated(TokenInfo(…))
        // snippet: end

        #expect(me.status == .ok)
        #expect(session.isAuthenticated)
        #expect(FileManager.default.fileExists(atPath: sessionFile.path))
        await server.stop()
    }
}
