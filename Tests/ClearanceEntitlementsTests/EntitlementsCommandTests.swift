import ClearanceDevelopment
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance entitlements …` as built, against `clearance serve` (a real process, stopped with
/// SIGTERM and started again) and against an in-process server whose clock the test moves.
@Suite(.timeLimit(.minutes(3))) struct EntitlementsCommandTests {
    /// The endpoint options for a server at `base`, and the store.
    static func options(_ base: String, store: String) -> [String] {
        ["--sign-in-url", "\(base)/pugpig/sign_in", "--renew-url", "\(base)/pugpig/renew_token", "--verify-url", "\(base)/pugpig/verify_subscription",
         "--credentials-url", "\(base)/pugpig/edition_credentials", "--sign-out-url", "\(base)/pugpig/sign_out", "--store", store]
    }

    static func startServe(config: URL, clockFile: URL? = nil) async throws -> (ChildProcess, String) {
        let environment = clockFile.map { ["CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE": $0.path] } ?? [:]
        let serve = try ClearanceExecutable.start(["serve", "--development", "--config", config.path, "--port", "0"], environment: environment)
        guard let ready = await serve.line(timeout: .seconds(30), where: { $0.hasPrefix("ready ") }),
              let http = ready.split(separator: " ").first(where: { $0.hasPrefix("http=") }) else {
            await serve.stop(.kill)
            throw ChildProcess.Failure("clearance serve did not start: \(serve.stderr)")
        }
        return (serve, String(http.dropFirst(5)))
    }

    @Test func signInVerifyRenewDownloadStatusAndSignOutAgainstServe() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let edition = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        for product in ["issue-1", "issue-2"] {
            try FileManager.default.createDirectory(at: directory.file("content/\(product)"), withIntermediateDirectories: true)
            try edition.write(to: directory.file("content/\(product)/edition.zip"))
        }
        let config = directory.file("config.json")
        try Data("""
            {"users": [{"token": "bob-password", "id": "bob", "entitlements": ["issue-1"]},
                       {"token": "carol-password", "id": "carol", "entitlements": "lapsed"}],
             "pugpig": {"secret": "cli-test-secret-cli-test-secret-32", "contentDirectory": "content", "tokenLifetime": 60}}
            """.utf8).write(to: config)
        // The development server's clock: the machine's, plus the seconds in this file.
        let clockFile = directory.file("clock-offset")
        try Data("0".utf8).write(to: clockFile, options: .atomic)
        let (serve, firstBase) = try await Self.startServe(config: config, clockFile: clockFile)
        var base = firstBase
        let store = directory.file("state/entitlements.json").path
        let options = Self.options(base, store: store)
        func run(_ arguments: [String], input: String = "") async throws -> ChildProcess.Output {
            try await ClearanceExecutable.run(["entitlements"] + arguments + options, input: input)
        }

        let refused = try await run(["sign-in", "--username", "bob", "--password-stdin"], input: "wrong\n")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("entitlements.notRecognised") && refused.stderr.contains("Invalid credentials"))
        #expect(!FileManager.default.fileExists(atPath: store))

        let signIn = try await run(["sign-in", "--username", "bob", "--password-stdin"], input: "bob-password\n")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        #expect(!(signIn.stdout + signIn.stderr).contains("bob-password"))
        #expect(try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? NSNumber == 0o600)

        let unverified = try await run(["status"])
        #expect(unverified.status == 0 && unverified.stdout == #"{"state":"unknown","access":[]}"# + "\n")

        let verify = try await run(["verify"])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout == #"{"state":"active","access":["issue-1"],"message":"You may read 1 issue"}"# + "\n")

        let status = try await run(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix(#"{"state":"active","access":["issue-1"],"message":"You may read 1 issue","fetchedAt":""#))

        // The token goes stale (61 s old on the server's clock, moved through its file, for a
        // lifetime of 60 s): verify renews it by itself.
        try Data("61".utf8).write(to: clockFile, options: .atomic)
        let renewed = try await run(["verify"])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(renewed.stdout == verify.stdout)

        let output = directory.file("downloads/issue-1.zip")
        let download = try await run(["download", "--product", "issue-1", "--url", "\(base)/content/issue-1/edition.zip", "--output", output.path])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(try Data(contentsOf: output) == edition)
        #expect(download.stdout.contains(#""bytes":300000"#))

        let other = directory.file("downloads/issue-2.zip")
        let refusedDownload = try await run(["download", "--product", "issue-2", "--url", "\(base)/content/issue-2/edition.zip", "--output", other.path])
        #expect(refusedDownload.status != 0 && refusedDownload.stderr.contains("entitlements.productUnavailable"))
        #expect(!FileManager.default.fileExists(atPath: other.path))

        // The service goes away: status still answers from the store; download fails and writes nothing.
        await serve.stop(.terminate(grace: .seconds(10)))
        let offline = try await run(["status"])
        #expect(offline.status == 0 && offline.stdout.hasPrefix(#"{"state":"active","access":["issue-1"],"message":"You may read 1 issue","fetchedAt":""#))
        let failed = try await run(["download", "--product", "issue-1", "--url", "\(base)/content/issue-1/edition.zip", "--output", directory.file("downloads/again.zip").path])
        #expect(failed.status != 0 && failed.stderr.contains("entitlements.networkFailure"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("downloads/again.zip").path))
        #expect((try FileManager.default.contentsOfDirectory(atPath: directory.file("downloads").path)) == ["issue-1.zip"])

        // Started again (same secret): the stored session goes on.
        let restarted: ChildProcess
        (restarted, base) = try await Self.startServe(config: config, clockFile: clockFile)
        defer { Task { await restarted.stop() } }
        let again = try await ClearanceExecutable.run(["entitlements", "verify"] + Self.options(base, store: store))
        #expect(again.status == 0 && again.stdout == verify.stdout, "\(again.stderr)")

        // The store never holds plaintext.
        let raw = try String(contentsOfFile: store, encoding: .utf8)
        for clear in ["bob", "issue-1", "active", "You may read", "password"] { #expect(!raw.contains(clear), "\(clear) in the store") }

        let signOut = try await ClearanceExecutable.run(["entitlements", "sign-out"] + Self.options(base, store: store))
        #expect(signOut.status == 0 && signOut.stdout == #"{"state":"signedOut","access":[]}"# + "\n")
        #expect(!FileManager.default.fileExists(atPath: store))
        let after = try await ClearanceExecutable.run(["entitlements", "status"] + Self.options(base, store: store))
        #expect(after.status == 0 && after.stdout == #"{"state":"signedOut","access":[]}"# + "\n")

        // A lapsed subscription: verify answers a state (exit 0); download is refused.
        let carol = Self.options(base, store: directory.file("carol.json").path)
        #expect(try await ClearanceExecutable.run(["entitlements", "sign-in", "--username", "carol", "--password-stdin"] + carol, input: "carol-password\n").status == 0)
        let lapsed = try await ClearanceExecutable.run(["entitlements", "verify"] + carol)
        #expect(lapsed.status == 0 && lapsed.stdout == #"{"state":"inactive","access":[],"message":"Your subscription has lapsed"}"# + "\n",
                "status \(lapsed.status): \(lapsed.stdout) \(lapsed.stderr)")
        let expired = try await ClearanceExecutable.run(["entitlements", "download", "--product", "issue-1", "--url", "\(base)/content/issue-1/edition.zip", "--output", directory.file("carol.zip").path] + carol)
        #expect(expired.status != 0 && expired.stderr.contains("entitlements.subscriptionExpired"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("carol.zip").path))
    }

    @Test func aClockOffsetFileThatCannotBeReadStopsServeNamingIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let garbage = directory.file("garbage")
        try Data("an hour".utf8).write(to: garbage)
        for path in [directory.file("missing").path, garbage.path] {
            let output = try await ClearanceExecutable.run(
                ["serve", "--development", "--port", "0"], environment: ["CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE": path])
            #expect(output.status != 0)
            #expect(output.stderr.contains("CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE") && output.stderr.contains(path), "\(output.stderr)")
        }
    }

    @Test func theClockFileMovesTheDateAndKeepsTheLastGoodOffset() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("clock")
        try Data("3600".utf8).write(to: file)
        let clock = try DevelopmentClockFile(path: file.path)
        let ahead = clock.now().timeIntervalSinceNow
        #expect(ahead > 3_590 && ahead <= 3_600)
        try Data("-60".utf8).write(to: file)
        #expect(clock.now().timeIntervalSinceNow <= -59)
        try Data("half a file".utf8).write(to: file)
        #expect(clock.now().timeIntervalSinceNow <= -59, "a file that does not parse keeps the offset before")
        #expect(throws: DevelopmentClockFile.Failure.self) { try DevelopmentClockFile(path: directory.file("none").path) }
    }

    @Test func aRefusedRenewalEndsTheSessionAndStatusSaysSignedOut() async throws {
        let clock = TestClock()
        try await PugpigFixture.with(clock: clock) { fixture in
            let directory = fixture.directory
            let options = Self.options(fixture.running.baseURL.absoluteString, store: directory.file("e.json").path)
            #expect(try await ClearanceExecutable.run(["entitlements", "sign-in", "--username", "alice", "--password-stdin", "--post"] + options, input: "alice-password\n").status == 0)
            let verify = try await ClearanceExecutable.run(["entitlements", "verify", "--post"] + options)
            #expect(verify.stdout == #"{"state":"active","access":"all","message":"Your subscription is active"}"# + "\n")
            clock.advance(fixture.server.settings.renewalWindow + 60)
            let ended = try await ClearanceExecutable.run(["entitlements", "verify", "--post"] + options)
            #expect(ended.status != 0)
            #expect(ended.stderr.contains("entitlements.subscriptionExpired") && ended.stderr.contains("sign in again"))
            #expect(ended.stdout.isEmpty)
            let status = try await ClearanceExecutable.run(["entitlements", "status"] + options)
            #expect(status.status == 0 && status.stdout == #"{"state":"signedOut","access":[]}"# + "\n")
            #expect(fixture.server.stats.count("renew_token") == 1)
        }
    }

    @Test func usageErrorsAndAnUnreadableStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = try await ClearanceExecutable.run(["entitlements", "verify", "--store", directory.file("e.json").path])
        #expect(missing.status == 64 && missing.stderr.contains("--verify-url"))
        let notURL = try await ClearanceExecutable.run(["entitlements", "verify", "--verify-url", "nope", "--store", directory.file("e.json").path])
        #expect(notURL.status == 64)
        let signedOut = try await ClearanceExecutable.run(["entitlements", "verify", "--verify-url", "http://127.0.0.1:9/v", "--store", directory.file("e.json").path])
        #expect(signedOut.status == 1 && signedOut.stderr.contains("entitlements.subscriptionExpired"))
        try Data("not a store".utf8).write(to: directory.file("e.json"))
        let corrupt = try await ClearanceExecutable.run(["entitlements", "status", "--store", directory.file("e.json").path])
        #expect(corrupt.status == 1 && corrupt.stderr.contains("session_store.corrupt"))
    }
}
