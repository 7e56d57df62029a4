import ClearanceDevelopment
import Foundation

/// The demo's step-by-step report: each step says what it expected and what happened.
final class DemoReport: @unchecked Sendable {
    struct Step {
        var title: String
        var passed: Bool
        var detail: String
    }

    private(set) var steps: [Step] = []
    private var section = ""

    func begin(_ title: String) {
        section = title
        print("\n\(title)")
        print(String(repeating: "─", count: title.count))
    }

    /// Runs one step; a thrown error fails the step with its message. The log lines logged while
    /// it runs are its own (``DemoLog``): those in `logs` (provoked on purpose) are shown under it
    /// as `logged: …` and must appear; any other warning or error is shown as `unexpected log: …`;
    /// the rest is silenced.
    func step(_ title: String, logs expected: [DemoLogExpectation] = [], _ body: () async throws -> (Bool, String)) async {
        let number = steps.count + 1
        let log = DemoLog.shared
        log.beginStep()
        var result: Step
        do {
            let (passed, detail) = try await body()
            result = Step(title: title, passed: passed, detail: detail)
        } catch {
            result = Step(title: title, passed: false, detail: "unexpected error: \(error)")
        }
        let lines = await log.endStep(expecting: expected)
        var notes: [String] = []
        for line in lines {
            if expected.contains(where: { $0.matches(line) }) {
                notes.append("logged: \(line)")
            } else if line.level >= .warning {
                notes.append("unexpected log: \(line)")
            }
        }
        if log.isInstalled {
            for expectation in expected where !lines.contains(where: expectation.matches) {
                result.passed = false
                notes.append("expected a log line that did not come: \(expectation)")
            }
        }
        steps.append(result)
        print("\(result.passed ? "PASS" : "FAIL")  \(number). \(title)")
        for line in result.detail.split(separator: "\n").map(String.init) + notes { print("        \(line)") }
    }

    var allPassed: Bool { steps.allSatisfy(\.passed) }

    func summary() {
        let failed = steps.filter { !$0.passed }.count
        print("\nDemo: \(steps.count - failed) of \(steps.count) steps behaved as expected\(failed > 0 ? " (\(failed) did not)" : "").")
    }
}
