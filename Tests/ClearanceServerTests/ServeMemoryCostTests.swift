import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// What a subscription and an idle HTTP connection cost `clearance serve`, measured as the limits
/// table states them ("Hub limits" in the operator's guide): the growth of its resident memory
/// over many of them, divided by their number, held to a bound. Each test prints the figure it
/// measured (`measured: …`).
///
/// Under a sanitizer, whose allocator keeps freed memory in quarantine and pads every allocation,
/// resident memory says nothing about the hub: there only the workload runs (the figures are
/// measured by the ordinary run).
@Suite("clearance serve: what a subscription and an idle connection cost", .timeLimit(.minutes(4)))
struct ServeMemoryCostTests {
    @Test func tenThousandSubscriptionsCostAtMostTwoKilobytesEach() async throws {
        let (clients, channelsEach) = (20, 500)
        try await ServeProcess.with(limits: TestHub.limits(), development: false) { serve in
            var connected: [TestWebSocketClient] = []
            for _ in 0..<clients { connected.append(try await serve.connect().client) }
            // Warm up: one subscription each, so the per-connection structures exist already.
            for (index, client) in connected.enumerated() {
                #expect(try await ServeSubscriptionLimitTests.subscribe(client, channels: ["warm-\(index)"]).succeeded == 1)
            }
            let before = try #require(serve.residentBytes)
            for (index, client) in connected.enumerated() {
                let channels = (0..<channelsEach).map { "cost-\(index)-\($0)" }
                #expect(try await ServeSubscriptionLimitTests.subscribe(client, channels: channels).succeeded == channelsEach)
            }
            let after = try #require(serve.residentBytes)
            let each = (after - before) / (clients * channelsEach)
            print("measured: \(each) bytes of resident memory per subscription (\(clients * channelsEach) subscriptions)")
            if !TestTiming.sanitized {
                #expect(each <= 2_048, "\(each) bytes per subscription")
            }
            for client in connected { await client.disconnect() }
        }
    }

    @Test func fiveHundredIdleHTTPConnectionsCostAtMostThirtyTwoKilobytesEach() async throws {
        let count = 500
        try await ServeProcess.with(limits: TestHub.limits(), development: false) { serve in
            // Warm up: a few, so the server's own first allocations are made already.
            var sockets: [RawSocket] = []
            for _ in 0..<10 { sockets.append(try RawSocket(host: "127.0.0.1", port: serve.port)) }
            #expect(try await serve.http.raw("GET", "/nothing-here").status == 404)
            let before = try #require(serve.residentBytes)
            // Each has sent part of a request head, and nothing more: the hub holds it until its deadline.
            for _ in 0..<count {
                let socket = try RawSocket(host: "127.0.0.1", port: serve.port)
                try socket.sendAll(Array("GET /apps/\(TestHub.appID)/channels HTTP/1.1\r\nHost: x\r\n".utf8))
                sockets.append(socket)
            }
            defer { sockets.forEach { $0.shutdownSocket() } }
            // Every one of them is held (the hub's own count of open sockets says so).
            try await eventually("the hub holds them all") { (serve.openDescriptors ?? 0) >= count }
            let after = try #require(serve.residentBytes)
            let each = (after - before) / count
            print("measured: \(each) bytes of resident memory per idle HTTP connection (\(count) connections)")
            if !TestTiming.sanitized {
                #expect(each <= 32_768, "\(each) bytes per idle connection")
            }
        }
    }
}
