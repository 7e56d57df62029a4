import ClearanceDevelopment
import ClearanceServer
import Foundation
import Logging
import PostgresNIO

/// Publishing from a transaction (`clearance_publish`, the outbox) beside the HTTP API, in one
/// run: one `clearance serve --backplane` on a throwaway PostgreSQL, one subscriber. Latency:
/// 300 events one after the other, each in a transaction of its own (from just before the
/// statement that publishes and commits to the subscriber), and 300 HTTP API triggers the same
/// way. Throughput: 10,000 events committed in one transaction, and 10,000 triggers 8 at a time,
/// each from the start to the last arrival. Targets: the outbox's p99 at most 50 ms, at least
/// 2,000 events a second.
struct OutboxBench {
    var latencyEvents = 300
    var throughputEvents = 10_000

    func run() async throws {
        print("\nPublishing from a transaction (the outbox) beside the HTTP API (one hub on PostgreSQL, one subscriber)")
        do {
            try await measure()
        } catch {
            print("  not measured: \(error)")
        }
    }

    private func measure() async throws {
        BenchStatus.measuring("starting PostgreSQL and a hub")
        let database = try await ThrowawayPostgres.start()
        do {
            let hub = try ServerProcess.hub(backplane: (database.url, HubConfiguration.randomSecret() + HubConfiguration.randomSecret()))
            defer { hub.stop() }
            try await hub.waitForLine(startingWith: "backplane connected")
            let client = FanOutClients.Group(port: hub.port, connections: 1)
            let (latencyEvents, throughputEvents) = (latencyEvents, throughputEvents)
            try await FanOutClients.with([client], closeServers: { hub.stop() }) { _ in
                let connection = try await PostgresConnection.connect(
                    configuration: .init(host: "127.0.0.1", port: database.port, username: "postgres", password: nil, database: "postgres", tls: .disable),
                    id: 1, logger: Logger(label: "bench.outbox"))
                do {
                    let publish: @Sendable (String) async throws -> Void = { data in
                        _ = try await connection.query(
                            "SELECT clearance_publish(\(ServerProcess.appID), ARRAY['bench'], 'bench-tick', \(data))", logger: Logger(label: "bench.outbox"))
                            .collect()
                    }
                    func oneByOne(_ label: String, _ send: @Sendable () async throws -> Void) async throws -> (Double, Double) {
                        BenchStatus.measuring("\(label): \(latencyEvents) events one after the other")
                        let first = client.samples.latencyCount
                        for index in 1...latencyEvents {
                            try await send()
                            guard try await Measure.wait(upTo: .seconds(30), until: { client.samples.latencyCount >= first + index }) else {
                                throw BenchFailure("\(label): event \(index) never arrived")
                            }
                        }
                        return (client.samples.percentile(0.5, from: first), client.samples.percentile(0.99, from: first))
                    }
                    let http = try await oneByOne("HTTP API") { try await hub.trigger(channel: "bench", name: "bench-tick", data: FanOutClients.stampedData()) }
                    let outbox = try await oneByOne("outbox") { try await publish(FanOutClients.stampedData()) }

                    BenchStatus.measuring("HTTP API: \(throughputEvents) events, 8 at a time")
                    var first = client.samples.latencyCount
                    var started = ContinuousClock.now
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for lane in 0..<8 {
                            group.addTask {
                                for _ in stride(from: lane, to: throughputEvents, by: 8) {
                                    try await hub.trigger(channel: "bench", name: "bench-tick", data: FanOutClients.stampedData())
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    guard try await Measure.wait(upTo: .seconds(120), until: { client.samples.latencyCount >= first + throughputEvents }) else {
                        throw BenchFailure("HTTP API: not every event arrived")
                    }
                    let httpRate = Double(throughputEvents) / Measure.seconds(ContinuousClock.now - started)

                    BenchStatus.measuring("outbox: \(throughputEvents) events in one transaction")
                    first = client.samples.latencyCount
                    started = ContinuousClock.now
                    _ = try await connection.query("""
                        SELECT clearance_publish(\(ServerProcess.appID), ARRAY['bench'], 'bench-tick', \(FanOutClients.stampedData()))
                        FROM generate_series(1, \(throughputEvents))
                        """, logger: Logger(label: "bench.outbox")).collect()
                    guard try await Measure.wait(upTo: .seconds(120), until: { client.samples.latencyCount >= first + throughputEvents }) else {
                        throw BenchFailure("outbox: not every event arrived")
                    }
                    let outboxRate = Double(throughputEvents) / Measure.seconds(ContinuousClock.now - started)

                    print(String(format: "  HTTP API: p50 %.2f ms, p99 %.2f ms one at a time; %.0f events/s (8 at a time)", http.0, http.1, httpRate))
                    print(String(format: "  outbox:   p50 %.2f ms, p99 %.2f ms commit to subscriber (target ≤ 50 ms: %@); %.0f events/s from one transaction (target ≥ 2,000: %@)",
                                 outbox.0, outbox.1, outbox.1 <= 50 ? "met" : "NOT met", outboxRate, outboxRate >= 2_000 ? "met" : "NOT met"))
                    print(String(format: "  outbox against the HTTP API: p99 %.2f×, throughput %.2f×", outbox.1 / http.1, outboxRate / httpRate))
                    try? await connection.close()
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        } catch {
            await database.destroy()
            throw error
        }
        await database.destroy()
    }
}
