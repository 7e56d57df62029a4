import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Testing

/// `clearance serve` in development mode (here switched on by `CLEARANCE_DEVELOPMENT=1`) mounts
/// the development OAuth2 provider beside the hub, and a session signs in against it.
@Suite("clearance serve: development OAuth2 provider")
struct ServeCommandTests {
    @Test func serveOffersTheDevelopmentProvider() async throws {
        let serve = try ClearanceExecutable.start(["serve", "--port", "0"], environment: ["CLEARANCE_DEVELOPMENT": "1"])
        let ready = try #require(await serve.line(timeout: .seconds(30)) { $0.hasPrefix("ready ") }, "no ready line: \(serve.stderr)")
        #expect(serve.stdout.contains("DEVELOPMENT ONLY"))
        let tokenURL = try #require(ready.split(separator: " ").first { $0.hasPrefix("oauth2=") }.flatMap { URL(string: String($0.dropFirst(7))) })

        let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: tokenURL, clientID: "demo-client", clientSecret: "demo-client-secret", notificationCenter: nil))
        _ = try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
        let client = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("s"), sources: ["s": session]))
        let (response, _) = try await client.send(.get, tokenURL.deletingLastPathComponent().appending(path: "me"))
        #expect(response.status == .ok)
        await serve.stop(.interrupt(grace: .seconds(10)))  // SIGINT (Ctrl-C): a clean shutdown
        #expect(serve.status == 0)
    }
}
