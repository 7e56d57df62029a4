import ClearanceServer
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// A browser's WebSocket upgrade is checked against its app's `allowedOrigins` before the
/// upgrade, over real sockets: a page of another origin gets an HTTP 403 (never a 101, so no
/// WebSocket ever exists), counted and logged; servers (no `Origin`) and listed origins, in any
/// case and with or without the default port, connect as before.
@Suite("Hub: allowed origins at the WebSocket upgrade", .timeLimit(.minutes(1)))
struct HubAllowedOriginsTests {
    private static let path = "/app/\(TestHub.key)?protocol=7&client=js&version=8.6.0"

    private func withHub(allowing origins: [String]?, _ body: (HubServer, LogCapture) async throws -> Void) async throws {
        let logs = LogCapture()
        let hub = try await TestHub.start(TestHub.configuration { $0.allowedOrigins = origins }, logger: logs.logger("hub"))
        try await withCleanup { try await body(hub, logs) } cleanup: { await hub.stop() }
    }

    /// Connects with `headers` and returns the first frame's text (the hub's welcome).
    private func welcome(_ hub: HubServer, headers: [String: String]) async throws -> String {
        let socket = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: Self.path, headers: headers)
        defer { socket.shutdownSocket() }
        let frame = await socket.reading { try? $0.readFrame() }
        return String(decoding: try #require(frame).payload, as: UTF8.self)
    }

    /// The hub's answer to an upgrade request with `headers`, read whole.
    private func answer(_ hub: HubServer, path: String = path, headers: [String: String]) async throws -> String {
        let socket = try RawSocket(host: "127.0.0.1", port: hub.port)
        defer { socket.shutdownSocket() }
        try socket.sendAll(Array(RawWebSocket.upgradeRequest(host: "127.0.0.1", port: hub.port, pathAndQuery: path, headers: headers).utf8))
        return try #require(await socket.httpResponse(timeout: .seconds(10)), "no whole HTTP answer")
    }

    @Test func aPageOfAnotherOriginIsRefusedWith403BeforeTheUpgradeCountedAndLogged() async throws {
        try await withHub(allowing: ["https://app.example.com", "http://localhost:8080"]) { hub, logs in
            let refused = try await answer(hub, headers: ["Origin": "https://evil.example.com"])
            #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused.prefix(200))")
            #expect(refused.contains("origin_not_allowed"))
            #expect(!refused.lowercased().contains("sec-websocket-accept"))
            #expect(hub.counters.value(.webSocketsRefusedAtOrigin) == 1)
            try await eventually("the refusal is logged") { logs.text.contains("hub.origin.refused") }
            #expect(logs.text.contains("evil.example.com"))

            // Another scheme, another port, the opaque origin of sandboxed pages: not listed either.
            for origin in ["http://app.example.com", "https://app.example.com:8443", "null", "https://app.example.com/"] {
                let answer = try await answer(hub, headers: ["Origin": origin])
                #expect(answer.hasPrefix("HTTP/1.1 403"), "\(origin): \(answer.prefix(120))")
            }
            #expect(hub.counters.value(.webSocketsRefusedAtOrigin) == 5)
            // A refused origin does not stop the hub from serving the others.
            let listed = try await welcome(hub, headers: ["Origin": "https://app.example.com"])
            #expect(listed.contains("pusher:connection_established"))
        }
    }

    @Test func listedOriginsInAnyCaseOrWithTheDefaultPortAndServersConnect() async throws {
        try await withHub(allowing: ["https://app.example.com", "http://localhost:8080"]) { hub, _ in
            for headers in [
                ["Origin": "https://app.example.com"],
                ["Origin": "HTTPS://App.Example.com:443"],
                ["Origin": "http://localhost:8080"],
                [:],  // no Origin: a server or an app, not a browser page
            ] {
                let text = try await welcome(hub, headers: headers)
                #expect(text.contains("pusher:connection_established"), "\(headers)")
            }
            #expect(hub.counters.value(.webSocketsRefusedAtOrigin) == 0)
        }
    }

    @Test func withoutAListEveryOriginConnects() async throws {
        try await withHub(allowing: nil) { hub, _ in
            for origin in ["https://anything.example", "null", "http://127.0.0.1:9999"] {
                let text = try await welcome(hub, headers: ["Origin": origin])
                #expect(text.contains("pusher:connection_established"), "\(origin)")
            }
        }
    }

    @Test func anEmptyListRefusesEveryPageButNotServers() async throws {
        try await withHub(allowing: []) { hub, _ in
            let page = try await answer(hub, headers: ["Origin": "https://app.example.com"])
            let server = try await welcome(hub, headers: [:])
            #expect(page.hasPrefix("HTTP/1.1 403"))
            #expect(server.contains("pusher:connection_established"))
        }
    }

    @Test func pathsThatNameNoAppAreRefusedAfterTheUpgradeAsBefore() async throws {
        try await withHub(allowing: ["https://app.example.com"]) { hub, _ in
            // An unknown key: upgraded, then pusher:error 4001 (what pusher-js expects), whatever the origin.
            let socket = try RawWebSocket(
                host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/no-such-key?protocol=7", headers: ["Origin": "https://evil.example.com"])
            defer { socket.shutdownSocket() }
            let frame = await socket.reading { try? $0.readFrame() }
            #expect(String(decoding: try #require(frame).payload, as: UTF8.self).contains("4001"))
            #expect(hub.counters.value(.webSocketsRefusedAtOrigin) == 0)
            // A plain GET of /app/{key} (no upgrade) is still a 404, from a listed origin or none.
            let fromListed = try await TestHTTP(hub).raw("GET", Self.path, headers: ["Origin": "https://app.example.com"])
            let fromServer = try await TestHTTP(hub).raw("GET", Self.path)
            #expect(fromListed.status == 404 && fromServer.status == 404)
        }
    }
}
