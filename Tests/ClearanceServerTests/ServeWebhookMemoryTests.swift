import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// The review's memory recipe, as found: a webhook receiver that is down for five minutes (the
/// hub's retry window) while clients keep sending 10 KB client events. The queue keeps the newest
/// within `maxQueuedWebhookBytes` (16 MiB here) and drops the rest, counted under the app; the
/// resident memory of `clearance serve` never grows past its size at the start of the flood plus
/// that bound plus 32 MB.
///
/// Under a sanitizer, whose allocator keeps freed memory in quarantine, resident memory says
/// nothing about the hub, and everything runs several times slower: there the bound is 1 MiB, 1,000
/// events are sent as fast as they go, and only the drops are checked (memory is measured by the
/// ordinary run).
@Suite("clearance serve: a webhook receiver down for five minutes", .timeLimit(.minutes(10)))
struct ServeWebhookMemoryTests {
    @Test func aReceiverDownForFiveMinutesUnderTenKilobyteClientEventsKeepsTheHubWithinTheWebhookByteBound() async throws {
        let deadPort = try LoopbackPort.free()  // nothing listens there: every attempt fails
        let sanitized = TestTiming.scale > 1
        let bound = (sanitized ? 1 : 16) * 1_048_576
        let clients = 4
        let metricsPort = try LoopbackPort.free()
        let limits = TestHub.limits {
            $0.maxQueuedWebhookBytes = bound
            $0.webhookBatchWindow = 0.1
        }
        try await ServeProcess.with(limits: limits, development: false, arguments: ["--metrics-port", "\(metricsPort)"], adjustApp: { app in
            app.clientEventsPerSecond = 10_000
            app.webhooks = [WebhookTarget(url: "http://127.0.0.1:\(deadPort)/hooks", events: [.clientEvent])]
        }) { serve in
            // Each client alone on its channel: nothing is relayed, only webhooks are made.
            var senders: [TestWebSocketClient] = []
            for index in 0..<clients {
                let (client, socketID) = try await serve.connect()
                try await TestHub.subscribe(client, socketID: socketID, channel: "private-flood-\(index)")
                senders.append(client)
            }
            let start = try #require(serve.residentBytes)
            let data = String(repeating: "x", count: 10_000)
            let sampler = Task {
                var peak = 0
                while !Task.isCancelled {
                    peak = max(peak, serve.residentBytes ?? 0)
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return peak
            }
            // About 50 events a second from each client (2 MB/s in all), for five minutes (the
            // hub's retry window); under a sanitizer, 1,000 events as fast as they go.
            let end = ContinuousClock.now + .seconds(300)
            var sent = 0
            while sanitized ? sent < 1_000 : ContinuousClock.now < end {
                for (index, client) in senders.enumerated() {
                    for _ in 0..<5 {
                        client.send(#"{"event":"client-big","channel":"private-flood-\#(index)","data":"\#(sent):\#(data)"}"#)
                        sent += 1
                    }
                }
                try await Task.sleep(for: .milliseconds(sanitized ? 10 : 100))
            }
            // Every event reached the hub and was queued or dropped: the drops say so.
            let metrics = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(metricsPort)")!)
            let capacity = bound / 10_000
            try await eventually("the queue dropped what the bound cannot hold", timeout: .seconds(60)) {
                let text = try await metrics.raw("GET", "/metrics").body
                let line = text.split(separator: "\n").first {
                    $0.hasPrefix("clearance_webhooks_total{") && $0.contains("result=\"dropped\"") && $0.contains("app_id=\"\(TestHub.appID)\"")
                }
                return Int(Double(line?.split(separator: " ").last ?? "") ?? 0) >= sent - capacity
            }
            sampler.cancel()
            let peak = await sampler.value
            #expect(serve.process.isRunning)
            #expect(sent > 4 * capacity, "the flood overran the bound several times: \(sent) events")
            if !sanitized {
                #expect(peak - start <= bound + 32 * 1_048_576, "grew \((peak - start) / 1_048_576) MB over \(start / 1_048_576) MB")
            }
            for client in senders { await client.disconnect() }
        }
    }
}
