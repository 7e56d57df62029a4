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

    @Test func aResumeOnAnotherNodeAfterTheTTLIsNotRecoveredAndNeverBefore() async throws {
        try await ServeCluster.withTwoNodes(adjustApp: { $0.history = ChannelHistoryConfiguration(size: 300, ttl: Self.ttl) }) { nodeA, nodeB, _ in
            let started = ContinuousClock.now
            let first = try await ServeClusterRecoveryTests.step("subscribe", nodeA, [])
            let event = try #require(first["event"] as? [String: Any])
            let stream = try #require(event["stream"] as? String)
            #expect(event["serial"] as? Int == 1)

            // Resumed from before the event until the answer says it is gone.
            let answers = Locked<[(recovered: Bool?, at: ContinuousClock.Instant)]>([])
            try await eventually("a resume after the ttl", timeout: .seconds(60)) {
                let answer = try await ServeClusterRecoveryTests.step("answer", nodeB, [stream, "0"])
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
