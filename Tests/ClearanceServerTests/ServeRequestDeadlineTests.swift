import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` against HTTP clients that hold connections: a request trickled a byte at a
/// time is cut at its deadline, and plain HTTP connections count against a limit of their own.
@Suite("clearance serve and trickled requests", .timeLimit(.minutes(2)))
struct ServeRequestDeadlineTests {
    /// The issue's reproduction: `httpIdleTimeout: 3`, a POST announcing 60,000 bytes and sending
    /// one every 2 s was still open after 20 s (Hummingbird restarts its idle timer with every
    /// body part). Now the whole request has `httpRequestTimeout`. (Trickled here a byte a second:
    /// every 2 s left the trickle a second's margin under the idle timeout, which a loaded machine
    /// sometimes missed, and the idle timeout then cut it first.)
    @Test func aBodyTrickledOneByteASecondIsCutAtTheRequestDeadline() async throws {
        let limits = TestHub.limits {
            $0.httpAPI.httpIdleTimeout = 3
            $0.httpAPI.httpRequestTimeout = 5
        }
        try await ServeProcess.with(limits: limits, development: false) { serve in
            let socket = try RawSocket(host: "127.0.0.1", port: serve.port)
            defer { socket.shutdownSocket() }
            let head = "POST /apps/\(TestHub.appID)/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"
            try socket.sendAll(Array(head.utf8))
            let trickler = ServeDescriptorLimitTests.trickle([socket], every: .seconds(1), for: .seconds(25))
            defer { trickler.cancel() }
            let closed = try #require(await socket.untilClosed(timeout: .seconds(20)), "still open after 20 s")
            #expect(closed.sinceConnected >= .milliseconds(4_500) && closed.sinceConnected <= TestTiming.slowed(.seconds(8)), "cut after \(closed.sinceConnected)")
            // The hub carries on.
            let answer = try await serve.http.signed("GET", "/apps/\(TestHub.appID)/channels")
            #expect(answer.status == 200)
        }
    }

    /// Plain HTTP connections used to count against no limit (only WebSockets did): a few
    /// hundred stalled ones reached the descriptor limit. Now `maxHTTPConnections` refuses the
    /// next one at accept, and a WebSocket that was already open is not affected.
    @Test func plainHTTPConnectionsPastTheirLimitAreRefusedAtAccept() async throws {
        let limits = TestHub.limits { $0.httpAPI.maxHTTPConnections = 10 }
        let metricsPort = try LoopbackPort.free()
        try await ServeProcess.with(limits: limits, development: false, arguments: ["--metrics-port", "\(metricsPort)"]) { serve in
            let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7")!)
            _ = try await client.next(event: "pusher:connection_established")
            // Ten connections that send half a request head and wait.
            let holders = try (0..<10).map { _ in
                let socket = try RawSocket(host: "127.0.0.1", port: serve.port)
                try socket.sendAll(Array("GET /apps/\(TestHub.appID)/channels HTTP/1.1\r\nHost: x\r\n".utf8))
                return socket
            }
            // The hub holds all eleven sockets (the WebSocket and the ten) before the next comes.
            let metrics = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(metricsPort)")!)
            try await eventually("eleven sockets open") { try await ServeDescriptorLimitTests.openSocketsMetric(metrics) == 11 }
            let eleventh = try RawSocket(host: "127.0.0.1", port: serve.port)
            let refused = await eleventh.untilClosed(timeout: .seconds(3))
            #expect(refused != nil && refused?.bytes.isEmpty == true, "the eleventh HTTP connection was not closed at once")
            // The WebSocket opened before is still served.
            client.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await client.next(event: "pusher:pong")
            holders.forEach { $0.shutdownSocket() }
            try await eventually("HTTP served again") {
                (try? await serve.http.signed("GET", "/apps/\(TestHub.appID)/channels").status) == 200
            }
            try await eventually("the refusal logged, naming the limit") {
                serve.process.stderr.split(separator: "\n").contains { $0.contains("hub.socket.refused") && $0.contains("maxHTTPConnections") }
            }
            await client.disconnect()
        }
    }
}
