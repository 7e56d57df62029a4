import ClearanceTestSupport
import Foundation
import Testing

/// `clearance demo` as a newcomer runs it (the built executable): no raw log line before, between
/// or after the steps, the lines a step provokes on purpose shown under it, and every step behaving.
@Suite("clearance demo", .timeLimit(.minutes(4)))
struct DemoCommandTests {
    /// A line as swift-log's stream handler (or the demo's own, outside a step) writes it:
    /// `2026-01-01T00:00:00+0000 error clearance.bloomreach: …`.
    static var rawLogLine: Regex<(Substring, Substring)> { #/^\S+ (trace|debug|info|notice|warning|error|critical) \S+: /# }

    @Test func noLogLineOutsideAStepAndEveryStepBehaves() async throws {
        let demo = try await ClearanceExecutable.run(["demo"], timeout: .seconds(200))
        let output = demo.stdout + demo.stderr
        #expect(demo.status == 0, "\(output.suffix(3_000))")
        #expect(demo.stderr.isEmpty, "the demo wrote to standard error: \(demo.stderr)")
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(!lines.contains { $0.contains(Self.rawLogLine) }, "raw log lines: \(lines.filter { $0.contains(Self.rawLogLine) })")
        #expect(!lines.contains { $0.contains("unexpected log:") }, "\(lines.filter { $0.contains("unexpected log:") })")

        // Every `logged:` line sits under a step: after a PASS/FAIL line, among its indented details.
        var inStep = false
        for line in lines {
            if line.hasPrefix("PASS  ") || line.hasPrefix("FAIL  ") {
                inStep = true
            } else if !line.hasPrefix("        ") {
                inStep = false
            }
            if line.contains("logged:") {
                #expect(inStep && line.hasPrefix("        logged: "), "a log line outside a step: \(line)")
            }
        }

        // The misconfiguration step shows the two errors it provokes.
        let misconfiguration = try #require(lines.firstIndex { $0.contains(". misconfiguration (an empty API key") })
        let details = lines[(misconfiguration + 1)...].prefix { $0.hasPrefix("        ") }
        #expect(details.contains { $0.hasPrefix("        logged: error clearance.bloomreach: misconfigured Bloomreach authorization") })
        #expect(details.contains { $0.hasPrefix("        logged: error clearance.authorizer: misconfigured authorization policy") })

        let summary = try #require(lines.last { !$0.isEmpty })
        let counts = try #require(summary.wholeMatch(of: #/Demo: (\d+) of (\d+) steps behaved as expected\./#), "\(summary)")
        #expect(counts.1 == counts.2 && Int(counts.2)! > 30)
    }
}
