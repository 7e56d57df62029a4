import ClearanceTestSupport
import Foundation
import Testing

/// `clearance entitlements download`'s progress, as built and against `clearance serve`: one
/// line updated in place on a terminal (a pseudo-terminal here), a line at every 10 % on a pipe,
/// nothing with `--quiet`; the result stays one JSON line on standard output.
@Suite(.timeLimit(.minutes(3))) struct DownloadProgressCommandTests {
    /// 4 MB: far more than one read of the socket (at most 64 kB), so every tenth arrives on its own.
    static let edition = Data((0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) })
    /// `issue-1: 1.2 MB of 4.0 MB, 30 %, 85.1 MB/s`
    static var progressLine: Regex<(Substring, Substring, Substring, Substring)> { #/^issue-1: [0-9.]+ (B|kB|MB) of 4\.0 MB, ([0-9]+) %, [0-9.]+ (B|kB|MB|GB)/s$/# }

    /// Starts `clearance serve` with the edition, signs bob in, and runs `body` with the
    /// arguments of a download into `directory/name`.
    static func withSignedInDownload(_ body: (_ download: (String) -> [String], _ directory: TemporaryDirectory) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.file("content/issue-1"), withIntermediateDirectories: true)
        try edition.write(to: directory.file("content/issue-1/edition.zip"))
        let config = directory.file("config.json")
        try Data("""
            {"users": [{"token": "bob-password", "id": "bob", "entitlements": ["issue-1"]}],
             "pugpig": {"secret": "progress-test-secret-of-32-bytes!!", "contentDirectory": "content"}}
            """.utf8).write(to: config)
        let (serve, base) = try await EntitlementsCommandTests.startServe(config: config)
        try await withCleanup {
            let options = EntitlementsCommandTests.options(base, store: directory.file("state/entitlements.json").path)
            let signIn = try await ClearanceExecutable.run(["entitlements", "sign-in", "--username", "bob", "--password-stdin"] + options, input: "bob-password\n")
            #expect(signIn.status == 0, "\(signIn.stderr)")
            try await body({ name in
                ["entitlements", "download", "--product", "issue-1", "--url", "\(base)/content/issue-1/edition.zip",
                 "--output", directory.file(name).path] + options
            }, directory)
        } cleanup: {
            await serve.stop()
        }
    }

    @Test func onAPipeALineAtEveryTenPercentAndNothingWithQuiet() async throws {
        try await Self.withSignedInDownload { download, directory in
            let piped = try await ClearanceExecutable.run(download("piped.zip"))
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(try Data(contentsOf: directory.file("piped.zip")) == Self.edition)
            #expect(piped.stdout.hasPrefix(#"{"product":"issue-1","bytes":4000000,"#) && piped.stdout.split(separator: "\n").count == 1)
            #expect(!piped.stderr.contains("\r"), "no carriage return off a terminal")
            let lines = piped.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            let percents = lines.compactMap { line in line.wholeMatch(of: Self.progressLine).flatMap { Int($0.output.2) } }
            #expect(percents.count == lines.count, "every line is a progress line: \(lines)")
            #expect(percents.map { $0 / 10 } == Array(1...10), "one line per tenth, the last at 100 %: \(lines)")

            let quiet = try await ClearanceExecutable.run(download("quiet.zip") + ["--quiet"])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
            #expect(quiet.stdout.hasPrefix(#"{"product":"issue-1","bytes":4000000,"#))
        }
    }

    @Test func onATerminalOneLineUpdatedInPlaceAndNothingWithQuiet() async throws {
        try await Self.withSignedInDownload { download, directory in
            let executable = try ClearanceExecutable.url()
            let shown = try await PseudoTerminal.run(executable, download("terminal.zip"))
            #expect(shown.status == 0, "\(shown.text)")
            #expect(try Data(contentsOf: directory.file("terminal.zip")) == Self.edition)
            // The terminal turns each \n into \r\n; a bare \r is the line being redrawn.
            let lines = shown.text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "the progress line, then the JSON result: \(shown.text.debugDescription)")
            guard lines.count == 2 else { return }
            #expect(lines[1].hasPrefix(#"{"product":"issue-1","bytes":4000000,"#))
            #expect(lines[0].hasPrefix("\r"), "drawn from the start of the line")
            let drawings = lines[0].split(separator: "\r").map { String($0).trimmingCharacters(in: .whitespaces) }
            #expect(drawings.count >= 2, "drawn at the start and again at the end: \(drawings)")
            let percents = drawings.compactMap { $0.wholeMatch(of: Self.progressLine).flatMap { Int($0.output.2) } }
            #expect(percents.count == drawings.count, "bytes, percent and rate each time: \(drawings)")
            #expect(percents.first == 0 && percents.last == 100 && percents == percents.sorted(), "\(percents)")

            let quiet = try await PseudoTerminal.run(executable, download("terminal-quiet.zip") + ["--quiet"])
            #expect(quiet.status == 0)
            #expect(quiet.text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").count == 1, "only the result: \(quiet.text.debugDescription)")
            #expect(!quiet.text.contains(" %, "))
        }
    }
}
