import Clearance
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Every secret the `clearance` commands take can come from standard input (`-`), a file
/// (`--NAME-file`) or an environment variable; on the command line itself it still works, with
/// a warning that `ps` shows it. Each way runs the built executable.
@Suite("clearance secrets on stdin, in files, in the environment", .serialized)
struct SecretInputCommandTests {
    static let secret = "app-secret-0123456789abcdef-XYZ"
    static let arguments = ["channel-auth", "--key", "app-key", "--socket-id", "123.456", "--channel", "private-orders"]

    static var expected: String {
        get throws { try ChannelAuthSigner(key: "app-key", secret: secret).authorizeChannel(socketID: "123.456", channelName: "private-orders").jsonString }
    }

    @Test func theAppSecretComesFromStdinAFileOrTheEnvironment() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("app.secret")
        try Data((Self.secret + "\n").utf8).write(to: file)
        let ways: [(String, [String], String, [String: String])] = [
            ("stdin", ["--secret", "-"], Self.secret + "\n", [:]),
            ("file", ["--secret-file", file.path], "", [:]),
            ("environment", [], "", ["CLEARANCE_APP_SECRET": Self.secret]),
        ]
        for (way, extra, input, environment) in ways {
            let output = try await ClearanceExecutable.run(Self.arguments + extra, input: input, environment: environment)
            #expect(output.status == 0, "\(way): \(output.stderr)")
            #expect(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try Self.expected), "\(way)")
            #expect(!output.stderr.contains("warning"), "\(way): \(output.stderr)")
        }
        // On the command line: works, and warns.
        let flag = try await ClearanceExecutable.run(Self.arguments + ["--secret", Self.secret])
        #expect(flag.status == 0)
        #expect(flag.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (try Self.expected))
        #expect(flag.stderr.contains("warning: --secret puts the secret on the command line"))
        #expect(!flag.stderr.contains(Self.secret))
        // user-auth takes the same options.
        let user = try await ClearanceExecutable.run(["user-auth", "--key", "app-key", "--socket-id", "1.2", "--user-data", #"{"id":"u1"}"#, "--secret", "-"], input: Self.secret)
        #expect(user.status == 0, "\(user.stderr)")
        #expect(user.stdout.contains(#""user_data""#))
    }

    @Test func aMissingOrEmptySecretIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let empty = directory.file("empty")
        try Data().write(to: empty)
        for (extra, input, message) in [
            ([String](), "", "Give the app secret"),
            (["--secret", "-"], "", "no secret in standard input"),
            (["--secret-file", empty.path], "", "no secret in"),
            (["--secret-file", directory.file("missing").path], "", "cannot read"),
            (["--secret", "x", "--secret-file", empty.path], "", "not both"),
        ] {
            let output = try await ClearanceExecutable.run(Self.arguments + extra, input: input, environment: ["CLEARANCE_APP_SECRET": ""])
            #expect(output.status != 0, "\(extra)")
            #expect(output.stderr.contains(message), "\(extra): \(output.stderr)")
        }
    }

    @Test func requestCredentialsComeFromStdinAFileOrTheEnvironment() async throws {
        try await AuthTestServer.with { server in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let file = directory.file("bearer")
            try Data("fresh-token\n".utf8).write(to: file)
            let url = server.url("bearer").absoluteString
            let ways: [(String, [String], String, [String: String])] = [
                ("stdin", ["--bearer", "-"], "fresh-token\n", [:]),
                ("file", ["--bearer-file", file.path], "", [:]),
                ("environment", [], "", ["CLEARANCE_BEARER": "fresh-token"]),
            ]
            for (way, extra, input, environment) in ways {
                let output = try await ClearanceExecutable.run(["request", "POST", url, "--data", "socket_id=1.2&channel_name=private-a"] + extra, input: input, environment: environment)
                #expect(output.status == 0, "\(way): \(output.stderr)")
                #expect(output.stdout.hasPrefix("HTTP 200"), "\(way): \(output.stdout)")
                #expect(!output.stderr.contains("warning"), "\(way)")
            }
            let flag = try await ClearanceExecutable.run(["request", "POST", url, "--bearer", "fresh-token"])
            #expect(flag.stdout.hasPrefix("HTTP 200"))
            #expect(flag.stderr.contains("warning: --bearer puts the secret on the command line"))
            #expect(await server.log.requests.map(\.authorization) == Array(repeating: "Bearer fresh-token", count: 4))
        }
    }
}
