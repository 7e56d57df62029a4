import Clearance
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// A missed event older than the app's `ttl` is not replayed: a resume on another node of a
/// cluster of real `clearance serve` processes is answered `recovered: false` once the event is
/// past its `ttl` (checked at the resume, in the database and in the node's memory), never before.
@Suite("clearance serve cluster: history ttl", .timeLimit(.minutes(3)))
struct ServeClusterHistoryTTLTests {
    static let ttl = 2.0

    private static func step(_ name: String, _ node: ServeProcess, _ arguments: [String]) async throws -> [String: Any] {
        let run = try await PythonPeer.run(
            "hub_resume_nodes.py", [name, "127.0.0.1", String(node.port), TestHub.appID, TestHub.key, TestHub.secret, "orders"] + arguments)
        #expect(run.status == 0, "hub_resume_nodes.py \(name) exited with \(run.status): \(run.stderr.suffix(2_000))")
        let line = try #require(run.stdout.split(separator: "\n").last.map(String.init), "no report: \(run.stderr.suffix(2_000))")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aResumeOnAnotherNodeAfterTheTTLIsNotRecoveredAndNeverBefore() async throws {
        try await ServeCluster.withTwoNodes(adjustApp: { $0.history = ChannelHistoryConfiguration(size: 300, ttl: Self.ttl) }) { nodeA, nodeB, _ in
            let started = ContinuousClock.now
            let first = try await Self.step("subscribe", nodeA, [])
            let event = try #require(first["event"] as? [String: Any])
            let stream = try #require(event["stream"] as? String)
            #expect(event["serial"] as? Int == 1)

            // Resumed from before the event until the answer says it is gone.
            let answers = Locked<[(recovered: Bool?, at: ContinuousClock.Instant)]>([])
            try await eventually("a resume after the ttl", timeout: .seconds(60)) {
                let answer = try await Self.step("answer", nodeB, [stream, "0"])
                let resumed = try #require(answer["resumed"] as? [String: Any])
                answers.withLock { $0.append((resumed["recovered"] as? Bool, ContinuousClock.now)) }
                return resumed["recovered"] as? Bool == false
            }
            let all = answers.withLock { $0 }
            let gone = try #require(all.last)
            // The hub answered after the event came (after `started`), and before `gone.at`.
            #expect(gone.at - started >= .seconds(Self.ttl), "not recovered before the ttl had passed")
            #expect(all.dropLast().allSatisfy { $0.recovered == true }, "recovered until then: \(all.map(\.recovered))")
        }
    }
}
