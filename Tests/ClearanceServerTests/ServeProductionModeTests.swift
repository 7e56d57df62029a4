import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` as built, without `--development`: the production hub. Every development
/// path answers 404, the development members of the file are ignored with a warning, no user is
/// made up and no token printed; the WebSocket endpoint and the HTTP API work as always. And
/// with `--development`, allowed origins and CORS through the same executable.
@Suite("clearance serve: production by default", .timeLimit(.minutes(3)))
struct ServeProductionModeTests {
    /// Every path the development mode mounts (one or more per prefix).
    static let developmentPaths = [
        "/oauth/token", "/oauth/revoke", "/oauth/me", "/oauth/authorize", "/oauth/jwks", "/oauth/userinfo", "/oauth/logout",
        "/.well-known/openid-configuration",
        "/pugpig/sign_in", "/pugpig/renew_token", "/pugpig/verify_subscription", "/pugpig/edition_credentials", "/pugpig/sign_out",
        "/content/issue-1/index.html",
        "/pusher/auth", "/pusher/user-auth",
    ]

    @Test func everyDevelopmentPathIsA404AndTheHubStillServes() async throws {
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits(), members: ["pugpig": #"{"tokenLifetime": 60}"#])
        defer { try? FileManager.default.removeItem(at: configuration) }
        let serve = try await ServeProcess.start(configuration: configuration, port: port, development: false)
        try await serve.killed {
            for path in Self.developmentPaths {
                for method in ["GET", "POST"] {
                    let answer = try await serve.http.raw(method, path, body: Data("socket_id=1.2&channel_name=private-a".utf8),
                                                          contentType: "application/x-www-form-urlencoded",
                                                          headers: ["Authorization": "Bearer alice-token", "Origin": "https://app.example.com"])
                    #expect(answer.status == 404, "\(method) \(path) answered \(answer.status)")
                }
            }
            #expect(try await serve.http.raw("OPTIONS", "/pusher/auth", headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"]).status == 404)

            // The WebSocket endpoint and the HTTP API: a subscriber gets what the app triggers.
            let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(port)/app/\(TestHub.key)?protocol=7")!)
            let established = try await client.next(event: "pusher:connection_established")
            let socketID = try #require(established.dataObject["socket_id"] as? String)
            try await TestHub.subscribe(client, socketID: socketID, channel: "private-orders")
            try await TestHub.trigger(serve.http, event: "created", channels: ["private-orders"], data: #"{"id":1}"#)
            let event = try await client.next(event: "created", channel: "private-orders")
            #expect(event.rawData as? String == #"{"id":1}"#)
            #expect(try await serve.http.signed("GET", "/apps/\(TestHub.appID)/channels").status == 200)
            await client.disconnect()

            let stdout = serve.process.stdout
            #expect(stdout.contains("production mode"))
            #expect(!stdout.contains("DEVELOPMENT ONLY"))
            #expect(!stdout.contains("alice-token") && !stdout.contains("token="))
            try await eventually("the warning on stderr") {
                serve.process.stderr.contains("warning: production mode ignores users, pugpig of \(configuration.path)")
            }
        }
    }

    @Test func withoutAConfigurationOneAppStartsWithAGeneratedSecretAndNoUser() async throws {
        let serve = try ClearanceExecutable.start(["serve", "--port", "0", "--log-level", "warning"])
        try await withCleanup {
            let ready = try #require(await serve.line(timeout: .seconds(30)) { $0.hasPrefix("ready ") }, "no ready line: \(serve.stderr)")
            #expect(ready.contains("ws=ws://127.0.0.1:") && !ready.contains("oauth2="))
            let stdout = serve.stdout
            #expect(stdout.contains("app id=100001") && stdout.contains("app key=clearance-key"))
            // The generated secret: once on standard error, never on standard output.
            #expect(serve.stderr.contains("generated app secret="), "\(serve.stderr)")
            #expect(!stdout.contains("secret="), "\(stdout)")
            #expect(!stdout.contains("user ") && !stdout.contains("token="), "\(stdout)")
            let http = try #require(ready.split(separator: " ").first { $0.hasPrefix("http=") }.map { String($0.dropFirst(5)) })
            #expect(try await TestHTTP(baseURL: try #require(URL(string: http))).raw("POST", "/oauth/token").status == 404)
        } cleanup: { await serve.stop(.terminate(grace: .seconds(10))) }
        #expect(serve.status == 0)
    }

    @Test func anUnknownDevelopmentSwitchValueIsRefused() async throws {
        let output = try await ClearanceExecutable.run(["serve", "--port", "0"], environment: ["CLEARANCE_DEVELOPMENT": "yes"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("CLEARANCE_DEVELOPMENT is 'yes'"), "\(output.stderr)")
    }

    @Test func inDevelopmentModeOriginsAreCheckedAndTheAuthEndpointAnswersCORS() async throws {
        try await ServeProcess.with(limits: TestHub.limits(), development: true, adjustApp: { $0.allowedOrigins = ["http://127.0.0.1:8080"] }) { serve in
            let port = serve.port
            #expect(serve.process.stdout.contains("CORS for pages of the origins [http://127.0.0.1:8080]"))
            // The WebSocket upgrade from another origin: 403 before the upgrade.
            let socket = try RawSocket(host: "127.0.0.1", port: port)
            try socket.sendAll(Array(RawWebSocket.upgradeRequest(
                host: "127.0.0.1", port: port, pathAndQuery: "/app/\(TestHub.key)?protocol=7", headers: ["Origin": "http://127.0.0.1:9090"]).utf8))
            let refused = try #require(await socket.httpResponse(timeout: .seconds(10)))
            #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused.prefix(200))")
            // From the allowed origin: connected.
            let allowed = try RawWebSocket(host: "127.0.0.1", port: port, pathAndQuery: "/app/\(TestHub.key)?protocol=7", headers: ["Origin": "http://127.0.0.1:8080"])
            allowed.shutdownSocket()

            let preflight = try await serve.http.raw("OPTIONS", "/pusher/auth", headers: [
                "Origin": "http://127.0.0.1:8080", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization",
            ])
            #expect(preflight.status == 204 && preflight.headers[.accessControlAllowOrigin] == "http://127.0.0.1:8080")
            let other = try await serve.http.raw("OPTIONS", "/pusher/auth", headers: ["Origin": "http://127.0.0.1:9090", "Access-Control-Request-Method": "POST"])
            #expect(other.status == 403 && other.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
