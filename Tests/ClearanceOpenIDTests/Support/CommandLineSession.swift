import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Testing

/// The built `clearance` executable, run as a user runs it, on one session store.
struct CommandLineSession {
    /// What `clearance login` did: its output, and whether the sign-in URL was on standard
    /// output (through a pipe) while the command still waited for the browser.
    struct Login {
        let status: Int32
        let stdout: String
        let stderr: String
        let urlSeenWhileWaiting: Bool
    }

    let directory: TemporaryDirectory
    var store: String { directory.file("config/session.json").path }

    /// The session store the commands use, opened in the test (with the key file beside it).
    var sessionStore: EncryptedFileSessionStore {
        get throws {
            EncryptedFileSessionStore(fileURL: directory.file("config/session.json"), key: try SessionStoreKey.file(directory.file("config/session.key")))
        }
    }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// `clearance <arguments> --store <store>` to its end.
    func run(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ClearanceExecutable.run(arguments + ["--store", store])
    }

    /// `clearance login <arguments>`: reads the sign-in URL from the pipe as soon as it is
    /// printed, hands it to `browse`, and waits for the command to end.
    /// The command is stopped whatever happens (`browse` failing included): it would otherwise
    /// wait for the browser for minutes.
    func login(_ arguments: [String], browse: (URL) async throws -> Void) async throws -> Login {
        let process = try ClearanceExecutable.start(["login"] + arguments + ["--store", store])
        return try await withCleanup {
            var seenWhileWaiting = false
            if let line = await process.line(timeout: .seconds(30), where: { $0.hasPrefix("http") }), let url = URL(string: line) {
                seenWhileWaiting = process.isRunning
                #expect(process.stdout.contains("Open this URL in your browser to sign in:\n\(line)\n"))
                try await browse(url)
            }
            guard await process.waitForExit(timeout: .seconds(30)) else {
                throw ChildProcess.Failure("clearance login did not end; stdout: \(process.stdout) stderr: \(process.stderr)")
            }
            return Login(status: process.status, stdout: process.stdout, stderr: process.stderr, urlSeenWhileWaiting: seenWhileWaiting)
        } cleanup: {
            if process.isRunning { await process.stop() }
        }
    }

    /// `clearance login --issuer <provider> --client-id <its client> --code`, the browser
    /// following the sign-in URL.
    func login(at provider: HostileOpenIDProvider) async throws -> Login {
        try await login(["--issuer", provider.issuer.absoluteString, "--client-id", provider.clientID, "--code"]) { url in
            try await Browser.follow(url)
        }
    }

    /// `clearance session show` says signed out and shows no `subject:` line.
    func expectSignedOutWithoutSubject(_ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let show = try await run(["session", "show"])
        #expect(show.stdout.contains("state: signed_out") && !show.stdout.contains("subject:"), "\(comment) \(show.stdout)", sourceLocation: sourceLocation)
    }

    /// Runs `body` with a session on a fresh directory, removed afterwards whatever happens.
    static func with<T>(_ body: (CommandLineSession) async throws -> T) async throws -> T {
        let cli = try CommandLineSession()
        return try await withCleanup { try await body(cli) } cleanup: { cli.remove() }
    }

    /// The lines of `text` starting with `prefix`, without it.
    static func values(_ prefix: String, in text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// The line after `line` in `text`.
    static func lineAfter(_ line: String, in text: String) -> String? {
        let lines = text.split(separator: "\n").map(String.init)
        return lines.firstIndex(of: line).flatMap { $0 + 1 < lines.count ? lines[$0 + 1] : nil }
    }

    func remove() { directory.remove() }
}
