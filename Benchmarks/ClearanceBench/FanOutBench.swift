import Foundation
import Logging
import ClearanceDevelopment
import WSClient
#if canImport(Glibc)
import Glibc
#endif

/// Hub fan-out: one HTTP API event to N subscribed loopback WebSocket connections, p50/p99
/// delivery latency (trigger call to frame read) and the hub's resident memory per connection.
/// The hub runs as a separate `clearance serve` process, so the clients' memory is not counted.
struct FanOutBench {
    /// Connection counts.
    var sizes = [1_000, 10_000]
    /// Events sent per size.
    var events = 5

    func run() async throws {
        print("\nHub fan-out (one HTTP API event to N loopback WebSocket connections)")
        for size in sizes {
            do {
                try await fanOut(connections: size)
            } catch {
                print("  N=\(size): not measured: \(error)")
            }
        }
    }

    private func fanOut(connections: Int) async throws {
        raiseOpenFileLimit()
        let hub = try HubProcess.start()
        defer { hub.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let rssBefore = hub.residentKilobytes()

        let samples = LatencySamples()
        let logger = Logger.silent("bench.client")
        let url = "ws://127.0.0.1:\(hub.port)/app/\(HubProcess.key)?protocol=7&client=clearance-bench&version=1.0.0"
        let subscribe = #"{"event":"pusher:subscribe","data":{"channel":"bench"}}"#
        let started = ContinuousClock.now

        try await withThrowingTaskGroup(of: Void.self) { group in
            var opened = 0
            while opened < connections {
                let wave = min(250, connections - opened)
                for _ in 0..<wave {
                    group.addTask {
                        _ = try? await WebSocketClient.connect(
                            url: url,
                            configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 16, closeTimeout: .seconds(2)),
                            logger: logger
                        ) { inbound, outbound, _ in
                            try await outbound.write(.text(subscribe))
                            for try await message in inbound.messages(maxSize: 1 << 16) {
                                guard case let .text(text) = message else { continue }
                                if text.contains("subscription_succeeded") {
                                    samples.addSubscribed()
                                } else if let sent = Self.timestamp(in: text) {
                                    samples.addLatency(DispatchTime.now().uptimeNanoseconds &- sent)
                                }
                            }
                        }
                    }
                }
                opened += wave
                // A client that never gets its subscription confirmed is left out of the figures.
                _ = try await Measure.wait(upTo: .seconds(30)) { samples.subscribedCount >= opened }
            }
            let ready = samples.subscribedCount
            let setup = ContinuousClock.now - started
            try await Task.sleep(for: .milliseconds(500))
            let rssAfter = hub.residentKilobytes()

            for index in 0..<events {
                let expected = ready * (index + 1)
                try await hub.trigger(channel: "bench", name: "bench-tick", data: #"{"t":\#(DispatchTime.now().uptimeNanoseconds)}"#)
                _ = try await Measure.wait(upTo: .seconds(30)) { samples.latencyCount >= expected }
            }
            let latencies = samples.sortedLatencies
            func percentile(_ fraction: Double) -> Double {
                guard !latencies.isEmpty else { return .nan }
                return Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]) / 1_000_000
            }
            let perConnection = rssBefore.flatMap { before in rssAfter.map { Double($0 - before) / Double(max(ready, 1)) } }
            print(String(
                format: "  N=%-6d subscribed %d in %.1f s; %d deliveries: p50 %.2f ms, p99 %.2f ms, max %.2f ms; hub RSS %@",
                connections, ready, Double(setup.components.seconds) + Double(setup.components.attoseconds) / 1e18,
                latencies.count, percentile(0.5), percentile(0.99), percentile(1.0),
                perConnection.map { String(format: "%.1f KB per connection", $0) } ?? "unavailable"
            ))
            hub.stop()
            group.cancelAll()
        }
    }

    private static func timestamp(in text: String) -> UInt64? {
        guard let range = text.range(of: #"\"t\":"#) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return UInt64(digits)
    }

    private func raiseOpenFileLimit() {
        #if canImport(Glibc)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        #endif
    }
}
