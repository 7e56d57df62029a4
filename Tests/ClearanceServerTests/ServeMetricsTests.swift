import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `clearance serve --metrics-port`: `/metrics` read by Prometheus's own Python text parser
/// (`prometheus_client`), following connections up and down, and `/ready` going 503 while a
/// SIGTERM'd hub drains.
@Suite("clearance serve metrics, health and readiness", .timeLimit(.minutes(3)))
struct ServeMetricsTests {
    @Test func metricsFollowConnectionsUpAndDownThroughPrometheusParser() async throws {
        let metricsPort = try LoopbackPort.free()
        try await ServeProcess.with(limits: TestHub.limits(), development: false, arguments: ["--metrics-port", "\(metricsPort)"]) { serve in
            #expect(await serve.process.line(timeout: .seconds(5)) { $0.hasPrefix("metrics http://127.0.0.1:\(metricsPort)/metrics") } != nil)
            let url = "http://127.0.0.1:\(metricsPort)/metrics"
            let app = ["app_id": TestHub.appID]

            // Before any connection: every named family is there, at 0, with its type.
            let start = try await PrometheusScrape.scrape(url)
            #expect(start.contentType.hasPrefix("text/plain; version=0.0.4"))
            #expect(start.value("clearance_connections", app) == 0)
            #expect(start.type(of: "clearance_connections") == "gauge")
            #expect(start.value("clearance_connections_total", app) == 0)
            #expect(start.type(of: "clearance_connections_total") == "counter")
            #expect(start.value("clearance_messages_received_total", app) == 0)
            #expect(start.value("clearance_messages_sent_total", app) == 0)
            #expect(start.value("clearance_backplane_connected") == 0)
            #expect(start.type(of: "clearance_backplane_connected") == "gauge")
            for reason in ["descriptors", "http_limit", "address_limit", "origin", "limit", "app_limit", "shutdown", "request"] {
                #expect(start.value("clearance_connections_refused_total", ["reason": reason]) == 0, "reason \(reason)")
            }

            // Two connections up: the gauge follows, the counters count.
            let first = try await serve.connectedClient()
            let second = try await serve.connectedClient()
            #expect(try await serve.subscribeAndReceive(first, channel: "news", event: "story", data: "hello"))
            let refused = try await serve.http.signed("POST", "/apps/\(TestHub.appID)/events", body: #"{"name":"x","channels":["news"],"data":"1"}"#,
                                                      signer: try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "not-the-secret-of-the-app"))
            #expect(refused.status == 401)

            let up = try await PrometheusScrape.scrape(url)
            #expect(up.value("clearance_connections", app) == 2)
            #expect(up.value("clearance_connections_total", app) == 2)
            #expect(up.value("clearance_messages_received_total", app) == 1)
            // connection_established twice, subscription_succeeded, the event.
            #expect(up.value("clearance_messages_sent_total", app) == 4)
            #expect(up.value("clearance_http_requests_total", ["app_id": TestHub.appID, "status": "200"]) == 1)
            #expect(up.value("clearance_http_requests_total", ["app_id": TestHub.appID, "status": "401"]) == 1)
            #expect(up.type(of: "clearance_http_requests_total") == "counter")
            #expect(up.value("clearance_open_sockets").map { $0 >= 2 } == true)
            #expect(up.value("clearance_subscriptions") == 1)

            // One down, and one refused for a key no app has (closed after the upgrade).
            await second.disconnect()
            let stranger = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(serve.port)/app/no-such-key?protocol=7")!)
            #expect(try await stranger.closeCode() == 4001)
            try await eventually("one connection left, one refused") {
                let now = try await PrometheusScrape.scrape(url)
                return now.value("clearance_connections", app) == 1
                    && now.value("clearance_connections_refused_total", ["reason": "request"]) == 1
            }
            let down = try await PrometheusScrape.scrape(url)
            #expect(down.value("clearance_connections_total", app) == 2)
            await first.disconnect()
            try await eventually("no connection left") { try await PrometheusScrape.scrape(url).value("clearance_connections", app) == 0 }

            let metrics = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(metricsPort)")!)
            #expect(try await metrics.raw("GET", "/health").status == 200)
            #expect(try await metrics.raw("GET", "/ready").status == 200)
            // Not on the clients' port.
            #expect(try await serve.http.raw("GET", "/metrics").status == 404)
        }
    }

    /// A hub with open connections and a shutdown spread of 3 s, sent SIGTERM: `/ready` answers
    /// 503 while it drains (and `/health` 200), and the process then exits cleanly.
    @Test func readyTurns503WhileSigtermedHubDrains() async throws {
        let metricsPort = try LoopbackPort.free()
        let limits = TestHub.limits { $0.connections.shutdownSpread = 3 }
        try await ServeProcess.with(limits: limits, development: false, arguments: ["--metrics-port", "\(metricsPort)"]) { serve in
            _ = await serve.process.line(timeout: .seconds(5)) { $0.hasPrefix("metrics ") }
            let metrics = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(metricsPort)")!)
            #expect(try await metrics.raw("GET", "/ready").status == 200)
            var clients: [TestWebSocketClient] = []
            for _ in 0..<4 { clients.append(try await serve.connectedClient()) }
            #expect(serve.process.send(SIGTERM))
            try await eventually("/ready answers 503") { try await metrics.raw("GET", "/ready").status == 503 }
            // Still draining: the hub's connections are closed over 3 s, and it is still running.
            #expect(serve.process.isRunning)
            #expect(try await metrics.raw("GET", "/health").status == 200)
            #expect(try await metrics.raw("GET", "/ready").status == 503)
            var codes: [UInt16?] = []
            for client in clients { codes.append(try await client.closeCode()) }
            #expect(codes.allSatisfy { $0 == 4200 }, "\(codes)")
            #expect(await serve.process.waitForExit(timeout: .seconds(20)))
            #expect(serve.process.status == 0, "\(serve.process.stderr.suffix(1_000))")
        }
    }

    @Test func metricsPortFromTheEnvironmentAndTheFile() async throws {
        let fromEnvironment = try LoopbackPort.free()
        try await ServeProcess.with(
            limits: TestHub.limits(), development: false, environment: ["CLEARANCE_METRICS_PORT": "\(fromEnvironment)"]
        ) { _ in
            let scrape = try await PrometheusScrape.scrape("http://127.0.0.1:\(fromEnvironment)/metrics")
            #expect(scrape.value("clearance_connections", ["app_id": TestHub.appID]) == 0)
        }
        let port = try LoopbackPort.free()
        let fromFile = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, members: ["metrics": #"{"port": \#(fromFile)}"#])
        defer { try? FileManager.default.removeItem(at: file) }
        let serve = try await ServeProcess.start(configuration: file, port: port, development: false)
        try await serve.killed {
            let scrape = try await PrometheusScrape.scrape("http://127.0.0.1:\(fromFile)/metrics")
            #expect(scrape.value("clearance_connections_total", ["app_id": TestHub.appID]) == 0)
        }
    }

    @Test func badMetricsPortIsAClearErrorAtStart() async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port)
        defer { try? FileManager.default.removeItem(at: file) }
        let badVariable = try await ClearanceExecutable.run(
            ["serve", "--config", file.path], environment: ["CLEARANCE_METRICS_PORT": "nine"])
        #expect(badVariable.status != 0)
        #expect(badVariable.stderr.contains("CLEARANCE_METRICS_PORT is 'nine'"), "\(badVariable.stderr)")
        let samePort = try await ClearanceExecutable.run(["serve", "--config", file.path, "--metrics-port", "\(port)"])
        #expect(samePort.status != 0)
        #expect(samePort.stderr.contains("metrics endpoint is not usable"), "\(samePort.stderr)")
    }
}
