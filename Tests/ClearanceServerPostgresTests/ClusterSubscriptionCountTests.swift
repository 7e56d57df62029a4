import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Subscription counts across a cluster of two real `clearance serve --backplane` nodes on a
/// real PostgreSQL: a subscriber on node A learns the channel's count across both nodes, in a
/// few coalesced frames however many join on node B.
@Suite("Subscription counts across a cluster", .timeLimit(.minutes(4)))
struct ClusterSubscriptionCountTests {
    @Test func aSubscriberOnOneNodeCountsTheOthersSubscribersInCoalescedFrames() async throws {
        try await ServeCluster.withTwoNodes(adjustApp: { $0.subscriptionCount = true }) { nodeA, nodeB, _ in
            let watcher = ChannelClient(key: TestHub.key, options: TestHub.options(nodeA.port))
            await watcher.connect()
            let channel = await watcher.subscribe("lobby")
            let counts = channel.subscriptionCounts
            let received = Locked([Int]())
            let reader = Task { for await count in counts { received.withLock { $0.append(count) } } }
            try await channel.subscribed()
            try await eventually("its own count") { received.withLock { $0 } == [1] }
            // A Python subscriber on node A too (raw frames).
            let python = try PythonPeer.start("hub_watch.py", [
                "127.0.0.1", String(nodeA.port), TestHub.appID, TestHub.key, TestHub.secret, "-", "-", "lobby", "120",
            ])
            defer { Task { await python.stop(.kill) } }
            #expect(await python.line(timeout: .seconds(30)) { $0.contains(#""ready": true"#) } != nil, "\(python.stderr.suffix(1_000))")
            try await eventually("two on node A") { received.withLock { $0 }.last == 2 }

            // Two hundred subscribers join on node B, as fast as they can.
            var joiners: [ChannelClient] = []
            let start = ContinuousClock.now
            for _ in 0..<200 {
                let client = ChannelClient(key: TestHub.key, options: TestHub.options(nodeB.port))
                await client.connect()
                _ = await client.subscribe("lobby")
                joiners.append(client)
            }
            for client in joiners { try await client.channel(named: "lobby")!.subscribed() }
            let joining = ContinuousClock.now - start
            try await eventually("the count across both nodes", timeout: .seconds(20)) { received.withLock { $0.last } == 202 }
            let frames = received.withLock { $0 }
            #expect(frames.count <= Int((joining / .seconds(1)).rounded(.up)) + 4, "coalesced: \(frames.count) frames for \(joining) of joins: \(frames)")
            #expect(frames == frames.sorted(), "\(frames)")
            #expect(channel.subscriptionCount == 202)
            try await eventually("python's count") { HubWatchOutput.counts(python).last == 202 }
            #expect(HubWatchOutput.counts(python).count <= frames.count + 2, "\(HubWatchOutput.counts(python))")

            for client in joiners.prefix(100) { await client.disconnect() }
            try await eventually("the count after a hundred left", timeout: .seconds(20)) { received.withLock { $0.last } == 102 }
            for client in joiners.dropFirst(100) { await client.disconnect() }
            try await eventually("alone again", timeout: .seconds(20)) { received.withLock { $0.last } == 2 }
            reader.cancel()
            await watcher.disconnect()
        }
    }
}
