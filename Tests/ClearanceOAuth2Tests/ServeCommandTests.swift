import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import Foundation
import HTTPTypes
import Testing

/// `clearance serve` mounts the development OAuth2 provider beside the hub, and a session signs in against it.
@Suite("clearance serve: development OAuth2 provider")
struct ServeCommandTests {
    @Test func serveOffersTheDevelopmentProvider() async throws {
        let executable = try #require(ClearanceExecutable.url(), "the clearance executable was not built")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }

        // Read until the ready line (at most 30 s).
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("ready "), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("DEVELOPMENT ONLY"))
        let ready = try #require(text.split(separator: "\n").first { $0.hasPrefix("ready ") })
        let tokenURL = try #require(ready.split(separator: " ").first { $0.hasPrefix("oauth2=") }.flatMap { URL(string: String($0.dropFirst(7))) })

        let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: tokenURL, clientID: "demo-client", clientSecret: "demo-client-secret", notificationCenter: nil))
        _ = try await session.signIn(with: PasswordGrant(username: "jane@example.com", password: "demo-password"))
        let client = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("s"), sources: ["s": session]))
        let (response, _) = try await client.send(.get, tokenURL.deletingLastPathComponent().appending(path: "me"))
        #expect(response.status == .ok)
        process.interrupt()  // SIGINT: a clean shutdown
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
