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

    /// Runs one step; a thrown error fails the step with its message.
    func step(_ title: String, _ body: () async throws -> (Bool, String)) async {
        let number = steps.count + 1
        let result: Step
        do {
            let (passed, detail) = try await body()
            result = Step(title: title, passed: passed, detail: detail)
        } catch {
            result = Step(title: title, passed: false, detail: "unexpected error: \(error)")
        }
        steps.append(result)
        print("\(result.passed ? "PASS" : "FAIL")  \(number). \(title)")
        for line in result.detail.split(separator: "\n") { print("        \(line)") }
    }

    var allPassed: Bool { steps.allSatisfy(\.passed) }

    func summary() {
        let failed = steps.filter { !$0.passed }.count
        print("\nDemo: \(steps.count - failed) of \(steps.count) steps behaved as expected\(failed > 0 ? " (\(failed) did not)" : "").")
    }
}
