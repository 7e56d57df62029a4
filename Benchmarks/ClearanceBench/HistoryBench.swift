import Clearance
import ClearanceDevelopment
import Foundation
import Logging
import WSClient

/// Connection recovery (an app's channel history): what keeping it costs the fan-out, and how fast
/// a resume is. Fan-out to N subscribers with history on against the same hub without it, in
/// alternating runs of this one bench (the ratio of the median p99s); then a client resuming 300
/// missed events, 100 times: from its `pusher:subscribe` with `resume` to the last replayed event.
struct HistoryBench {
    var connections = 10_000
    /// Runs of each hub (without history, with), alternating: one pair's p99 moves by half between
    /// runs on the 2-core machine, so a ratio needs several.
    var rounds = 5
    var missed = 300
    var resumes = 100

    func run() async throws {
        print("\nChannel history: fan-out to \(connections) with history on against the same hub without it (\(rounds) runs each, alternating), and resumes")
        var without: [FanOutBench.Figure] = [], with: [FanOutBench.Figure] = []
        for round in 1...rounds {
            BenchStatus.measuring("history: run \(round) of \(rounds) without history")
            without.append(try await FanOutBench().measure(connections: connections, server: { try ServerProcess.hub() }))
            BenchStatus.measuring("history: run \(round) of \(rounds) with history")
            with.append(try await FanOutBench().measure(connections: connections, server: { try ServerProcess.hub(history: true) }))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let off = median(without.map(\.p99)), on = median(with.map(\.p99))
        print(String(format: "  N=%d p99 without history %@ ms, with %@ ms: median %.2f ms against %.2f ms, %.2f× (target ≤ 1.2×: %@)",
                     connections, without.map { String(format: "%.2f", $0.p99) }.joined(separator: "/"),
                     with.map { String(format: "%.2f", $0.p99) }.joined(separator: "/"), on, off, on / off, on / off <= 1.2 ? "met" : "NOT met"))
        let memory = (without.compactMap(\.kilobytesPerConnection), with.compactMap(\.kilobytesPerConnection))
        if !memory.0.isEmpty, !memory.1.isEmpty {
            print(String(format: "  memory per connection: %.1f KB without history, %.1f KB with (medians)", median(memory.0), median(memory.1)))
        }

        BenchStatus.measuring("history: \(resumes) resumes of \(missed) missed events")
        let server = try ServerProcess.hub(history: true)
        defer { server.stop() }
        let stream = try await Self.session(port: server.port, resume: nil, expecting: 0).stream
        for index in 1...missed {
            try await server.trigger(channel: "recovery", name: "bench-missed", data: #"{"n":\#(index)}"#)
        }
        var samples: [Double] = []
        for _ in 0..<resumes {
            let session = try await Self.session(port: server.port, resume: (stream, 0), expecting: missed)
            guard session.recovered, session.received == missed else {
                throw BenchFailure("a resume got \(session.received) of \(missed) events (recovered: \(session.recovered))")
            }
            samples.append(Measure.seconds(session.elapsed) * 1_000)
        }
        samples.sort()
        let p99 = samples[min(samples.count - 1, Int((Double(samples.count) * 0.99).rounded(.up)) - 1)]
        print(String(format: "  a resume of %d missed events (%d resumes, one at a time): p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 ≤ 50 ms: %@)",
                     missed, resumes, samples[samples.count / 2], p99, samples.last!, p99 <= 50 ? "met" : "NOT met"))

        // Across a cluster: the events numbered and stored in PostgreSQL before either node delivers them
        // (20 events: the p99 of 5 moved by a third between runs).
        try await CrossNodeBench(events: 20, history: true).run()
    }

    /// What one connection saw: the channel's stream, whether it recovered, the events replayed
    /// and the time from its subscribe to the last of them.
    struct Session: Sendable {
        var stream = ""
        var recovered = false
        var received = 0
        var elapsed = Duration.zero
    }

    /// Connects, subscribes to `recovery` (resuming from `resume`) and reads until `expecting`
    /// events came after `subscription_succeeded` (at most 30 s).
    static func session(port: Int, resume: (stream: String, serial: Int)?, expecting: Int) async throws -> Session {
        let url = "ws://127.0.0.1:\(port)/app/\(ServerProcess.key)?protocol=7&client=clearance-bench&version=1.0.0"
        let resumeMember = resume.map { #","resume":{"stream":"\#($0.stream)","serial":\#($0.serial)}"# } ?? ""
        let subscribe = #"{"event":"pusher:subscribe","data":{"channel":"recovery"\#(resumeMember)}}"#
        let result = Locked(Session())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 20, closeTimeout: .seconds(2)),
                    logger: Logger.silent("bench.history")
                ) { inbound, outbound, _ in
                    var started = ContinuousClock.now
                    var done = false
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case let .text(text) = message else { continue }
                        if text.contains("pusher:connection_established") {
                            started = ContinuousClock.now
                            try await outbound.write(.text(subscribe))
                        } else if text.contains("subscription_succeeded") {
                            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                            result.withLock {
                                $0.stream = object?["stream"] as? String ?? ""
                                $0.recovered = object?["recovered"] as? Bool ?? false
                            }
                            done = expecting == 0
                        } else if text.contains("bench-missed") {
                            let count = result.withLock { session in
                                session.received += 1
                                return session.received
                            }
                            done = count >= expecting
                        }
                        if done {
                            result.withLock { $0.elapsed = ContinuousClock.now - started }
                            try await outbound.close(.normalClosure, reason: nil)
                            return
                        }
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                throw BenchFailure("a resume did not finish within 30 s")
            }
            try await group.next()
            group.cancelAll()
        }
        return result.withLock { $0 }
    }
}
