import Foundation

/// Hub fan-out: one HTTP API event to N subscribed loopback WebSocket connections: p50/p99
/// delivery latency (trigger call to frame read), how fast the connections subscribe, and the
/// server's resident memory per connection. Measured in the same run, with the same clients,
/// against the minimal broadcaster on the same stack (``BaselineBroadcaster``): the limit the
/// hub's Pusher logic is judged against. Each server is a process of its own, so the clients'
/// memory is not counted.
struct FanOutBench {
    /// Connection counts.
    var sizes = [1_000, 10_000]
    /// Events sent per size.
    var events = 5

    /// What one server did for one size.
    struct Figure {
        let subscribed: Int
        let setup: Duration
        let p50: Double
        let p99: Double
        let maximum: Double
        let deliveries: Int
        let kilobytesPerConnection: Double?

        var connectionsPerSecond: Double { Double(subscribed) / Measure.seconds(setup) }
    }

    func run() async throws {
        print("\nHub fan-out (one HTTP API event to N loopback WebSocket connections), against a minimal broadcaster on the same stack")
        for size in sizes {
            do {
                BenchStatus.measuring("N=\(size): the minimal broadcaster")
                let baseline = try await measure(connections: size, server: ServerProcess.broadcaster)
                BenchStatus.measuring("N=\(size): the hub")
                let hub = try await measure(connections: size, server: { try ServerProcess.hub() })
                report(size: size, baseline: baseline, hub: hub)
            } catch {
                print("  N=\(size): not measured: \(error)")
            }
        }
    }

    /// One server's figure for `connections` subscribers of `bench` (``HistoryBench`` measures with it too).
    func measure(connections: Int, server start: () throws -> ServerProcess) async throws -> Figure {
        let server = try start()
        defer { server.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let before = server.residentKilobytes()
        let group = FanOutClients.Group(port: server.port, connections: connections)
        let events = events
        return try await FanOutClients.with([group], closeServers: { server.stop() }) { setup in
            let ready = group.samples.subscribedCount
            try await Task.sleep(for: .milliseconds(500))
            let after = server.residentKilobytes()
            for index in 0..<events {
                try await server.trigger(channel: "bench", name: "bench-tick", data: FanOutClients.stampedData())
                _ = try await Measure.wait(upTo: .seconds(30)) { group.samples.latencyCount >= ready * (index + 1) }
            }
            let perConnection = before.flatMap { before in after.map { Double($0 - before) / Double(max(ready, 1)) } }
            return Figure(subscribed: ready, setup: setup, p50: group.samples.percentile(0.5), p99: group.samples.percentile(0.99),
                          maximum: group.samples.percentile(1), deliveries: group.samples.latencyCount, kilobytesPerConnection: perConnection)
        }
    }

    private func report(size: Int, baseline: Figure, hub: Figure) {
        func line(_ label: String, _ figure: Figure) {
            let memory = figure.kilobytesPerConnection.map { String(format: "%.1f KB (%.0f bytes) per connection", $0, $0 * 1024) } ?? "memory unavailable"
            print("    " + label.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: "subscribed %d in %.1f s (%.0f/s); %d deliveries: p50 %.2f ms, p99 %.2f ms, max %.2f ms; %@",
                         figure.subscribed, Measure.seconds(figure.setup), figure.connectionsPerSecond, figure.deliveries,
                         figure.p50, figure.p99, figure.maximum, memory))
        }
        print("  N=\(size)")
        line("minimal broadcaster", baseline)
        line("hub", hub)
        let p99Ratio = hub.p99 / baseline.p99
        var verdicts = String(format: "    hub/broadcaster: p99 %.2f×", p99Ratio)
        if size >= 10_000 { verdicts += String(format: " (target ≤ 1.5×: %@)", p99Ratio <= 1.5 ? "met" : "NOT met") }
        verdicts += String(format: ", connection rate %.2f×", hub.connectionsPerSecond / baseline.connectionsPerSecond)
        if let hubMemory = hub.kilobytesPerConnection, let baseMemory = baseline.kilobytesPerConnection {
            verdicts += String(format: ", memory %.2f× (hub %.1f KB per connection, target ≤ 24 KB: %@)",
                               hubMemory / baseMemory, hubMemory, hubMemory <= 24 ? "met" : "NOT met")
        }
        print(verdicts)
    }
}
