import ClearanceTestSupport
import Foundation
import Testing

/// `clearance bench` says what it is measuring while it measures (on standard error): a
/// `measuring: …` line each time on a pipe, one status line that the report replaces on a
/// terminal. The report on standard output is unchanged.
@Suite("clearance bench status", .timeLimit(.minutes(2)))
struct BenchStatusCommandTests {
    static let arguments = ["bench", "--only", "credentials", "--iterations", "20000"]
    static let statuses = [
        "measuring: baseline: header set by hand (20000 requests)…",
        "measuring: Credential.apply (20000 requests)…",
        "measuring: CachingCredentialSource.credential() + apply (20000 requests)…",
    ]
    static let figures = ["baseline: header set by hand", "Credential.apply (credential in hand)", "CachingCredentialSource.credential() + apply"]

    @Test func onAPipeEachFigureIsAnnouncedOnStandardError() async throws {
        let result = try await ClearanceExecutable.run(Self.arguments, timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").map(String.init) == Self.statuses, "\(result.stderr.debugDescription)")
        for figure in Self.figures {
            #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("  " + figure) }, "no \(figure) line in \(result.stdout)")
        }
        #expect(!result.stdout.contains("measuring"))
    }

    @Test func onATerminalTheStatusLineIsReplacedByTheReport() async throws {
        let shown = try await PseudoTerminal.run(try ClearanceExecutable.url(), Self.arguments, timeout: .seconds(90))
        #expect(shown.status == 0, "\(shown.text)")
        for status in Self.statuses {
            #expect(shown.text.contains("\r" + status), "\(status) was not shown: \(shown.text.debugDescription)")
        }
        // What stays on the screen: each line as its last carriage return left it.
        let visible = shown.text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in String(line.split(separator: "\r", omittingEmptySubsequences: false).last ?? "") }
        #expect(!visible.contains { $0.contains("measuring") }, "a status line stayed on the screen: \(visible)")
        for figure in Self.figures {
            #expect(visible.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(figure) }, "no \(figure) line in \(visible)")
        }
    }
}
