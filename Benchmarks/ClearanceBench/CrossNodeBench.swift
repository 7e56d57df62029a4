import ClearanceDevelopment
import ClearanceServer
import Foundation

/// Fan-out across a cluster: two hubs (`clearance serve --backplane`) on a throwaway PostgreSQL,
/// 1,000 connections on each; events triggered through node A's HTTP API. The figure is the
/// delivery latency at node B's clients (the event crossed through PostgreSQL), beside node A's
/// own clients in the same run. With `history`, the app keeps a history of the channel (each event
/// numbered and stored in PostgreSQL before either node delivers it; target: across nodes at most
/// 1.5× node A's own p99).
struct CrossNodeBench {
    var connectionsPerNode = 1_000
    var events = 5
    var history = false

    func run() async throws {
        let kept = history ? ", channel history on" : ""
        print("\nCluster fan-out (2 hubs on PostgreSQL, \(connectionsPerNode) connections each; events triggered on node A\(kept))")
        do {
            try await measure()
        } catch {
            print("  not measured: \(error)")
        }
    }

    private func measure() async throws {
        BenchStatus.measuring("starting PostgreSQL and two hubs")
        let database = try await ThrowawayPostgres.start()
        do {
            let clusterKey = HubConfiguration.randomSecret() + HubConfiguration.randomSecret()
            let nodeA = try ServerProcess.hub(backplane: (database.url, clusterKey), history: history)
            let nodeB = try ServerProcess.hub(backplane: (database.url, clusterKey), history: history)
            defer {
                nodeA.stop()
                nodeB.stop()
            }
            try await nodeA.waitForLine(startingWith: "backplane connected")
            try await nodeB.waitForLine(startingWith: "backplane connected")
            let local = FanOutClients.Group(port: nodeA.port, connections: connectionsPerNode)
            let remote = FanOutClients.Group(port: nodeB.port, connections: connectionsPerNode)
            let events = events
            try await FanOutClients.with([local, remote], closeServers: { nodeA.stop(); nodeB.stop() }) { setup in
                let ready = local.samples.subscribedCount + remote.samples.subscribedCount
                // Node A relays to node B once it knows B's subscribers.
                BenchStatus.measuring("\(events) events to \(ready) connections across the two hubs")
                try await waitUntilKnown(ready, by: nodeA)
                for index in 0..<events {
                    try await nodeA.trigger(channel: "bench", name: "bench-tick", data: FanOutClients.stampedData())
                    _ = try await Measure.wait(upTo: .seconds(30)) {
                        local.samples.latencyCount >= local.samples.subscribedCount * (index + 1)
                            && remote.samples.latencyCount >= remote.samples.subscribedCount * (index + 1)
                    }
                }
                print(String(format: "  subscribed %d in %.1f s", ready, Measure.seconds(setup)))
                for (label, group) in [("node A (triggered here)", local), ("node B (across PostgreSQL)", remote)] {
                    print("    " + label.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%d deliveries: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                                 group.samples.latencyCount, group.samples.percentile(0.5), group.samples.percentile(0.99),
                                 group.samples.percentile(1)))
                }
                let ratio = remote.samples.percentile(0.99) / local.samples.percentile(0.99)
                print(String(format: "    across nodes: p99 %.2f ms (%.2f× node A's own%@)",
                             remote.samples.percentile(0.99), ratio, history ? (ratio <= 1.5 ? "; target ≤ 1.5×: met" : "; target ≤ 1.5×: NOT met") : ""))
            }
        } catch {
            await database.destroy()
            throw error
        }
        await database.destroy()
    }

    private func waitUntilKnown(_ subscriptions: Int, by node: ServerProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await node.subscriptionCount(channel: "bench") < subscriptions {
            guard ContinuousClock.now < deadline else { throw BenchFailure("node A never counted all \(subscriptions) subscriptions") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
