import ClearanceTestSupport
import Foundation
import Testing

/// `clearance bench --soak` as built: a tiny soak (40 connections for 3 seconds) proves the
/// command runs its churning clients against a `clearance serve` of its own and prints the
/// hub's memory and file descriptors at the start and the end. (The real figures, 2,000
/// connections for minutes in a release build, are in Benchmarks/RESULTS.md.)
@Suite("clearance bench --soak", .timeLimit(.minutes(2)))
struct SoakCommandTests {
    @Test func aTinySoakReportsMemoryAndDescriptorsAtTheStartAndTheEnd() async throws {
        let result = try await ClearanceExecutable.run(["bench", "--soak", "0.05", "--soak-connections", "40"], timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stderr)")
        let output = result.stdout
        let figure = #/RSS \d+\.\d MB, \d+ open file descriptors, \d+ clients connected/#
        for label in ["before the clients:", "after warm-up", "at the end:", "clients gone:"] {
            let line = try #require(output.split(separator: "\n").first { $0.contains(label) }, "no '\(label)' line in \(output)")
            #expect(line.contains(figure), "\(line)")
        }
        #expect(output.contains("RSS growth from start to end:"))
        #expect(output.contains("descriptors beyond connections, start to end:"))
        // The clients did work, and once they are gone the hub holds no descriptor of theirs.
        let sessions = try #require(output.firstMatch(of: #/work: (\d+) sessions, (\d+) subscribes \((\d+) confirmed/#))
        #expect(Int(sessions.1)! >= 40 && Int(sessions.3)! > 0, "\(output)")
        #expect(output.contains("none leaked"), "\(output)")
    }

    @Test func badSoakArgumentsAreRefused() async throws {
        let result = try await ClearanceExecutable.run(["bench", "--soak=-1"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--soak must be more than 0"), "\(result.stderr)")
    }
}
