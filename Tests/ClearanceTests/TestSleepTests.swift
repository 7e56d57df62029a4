import ClearanceTestSupport
import Foundation
import Testing

/// Tests wait on conditions, never on the clock: each sleep left in `Tests/` is something other
/// than a wait (a fake server slow on purpose, the deadline raced against an answer, the pace of
/// a poll), and says so on the line before, in a comment that starts `// sleep:`. A new sleep
/// without one fails here, with its place.
@Suite("Tests never sleep to wait")
struct TestSleepTests {
    /// The calls looked for (written in two parts, so that this file does not match itself).
    static let calls = ["Task" + ".sleep(", "Thread" + ".sleep("]

    /// The places in `text` (of file `name`) that sleep without a `// sleep:` line before them,
    /// and how many do with one.
    static func scan(_ text: String, name: String) -> (unexplained: [String], explained: Int) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var unexplained: [String] = []
        var explained = 0
        for (index, line) in lines.enumerated() {
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//"), calls.contains(where: { code.contains($0) }) else { continue }
            if index > 0, lines[index - 1].trimmingCharacters(in: .whitespaces).hasPrefix("// sleep:") {
                explained += 1
            } else {
                unexplained.append("\(name):\(index + 1): \(code)")
            }
        }
        return (unexplained, explained)
    }

    @Test func theScanFindsASleepWithoutItsReasonAndAcceptsOneWithIt() {
        let call = Self.calls[0]
        let text = """
            try await \(call)for: .seconds(2))
            // sleep: the server hangs on purpose.
            try await \(call)for: .seconds(3))
            // try await \(call)for: .seconds(4)) in a comment is no call
            """
        let result = Self.scan(text, name: "Example.swift")
        #expect(result.unexplained == ["Example.swift:1: try await \(call)for: .seconds(2))"])
        #expect(result.explained == 1)
    }

    @Test func everySleepInTestsSaysWhyItIsNotAWait() throws {
        let root = try PackageRoot.url().appendingPathComponent("Tests")
        let files = (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count > 100, "the Swift files of Tests/: \(files.count)")
        var unexplained: [String] = []
        var explained = 0
        for file in files {
            let result = Self.scan(try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), name: "Tests/\(file)")
            unexplained += result.unexplained
            explained += result.explained
        }
        #expect(unexplained.isEmpty, "sleeps without a `// sleep:` reason on the line before:\n\(unexplained.joined(separator: "\n"))")
        // The positive control: the scan read the files, and found the sleeps that say why.
        #expect(explained > 10, "\(explained) sleeps with a reason")
    }
}
