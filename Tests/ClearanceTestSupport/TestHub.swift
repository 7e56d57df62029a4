import AsyncHTTPClient
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import ClearanceSigning
import Foundation
import HTTPTypes
import Logging

/// A hub on loopback with a known app and development users, and helpers to drive it the way
/// server libraries and clients do. Every test target that needs a hub uses this one.
package enum TestHub {
    package static let appID = "1234"
    package static let key = "test-key"
    package static let secret = "test-secret"
    /// Base64 of the 32 bytes 0x00…0x1f.
    package static let masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()

    package static let alice = DevelopmentUser(token: "alice-token", id: "alice", info: .object(["name": .string("Alice")]))
    package static let bob = DevelopmentUser(token: "bob-token", id: "bob", info: .object(["name": .string("Bob")]))
    package static let carol = DevelopmentUser(token: "carol-token", id: "carol")
    package static let users = [alice, bob, carol]

    package static var signer: ChannelAuthSigner { try! ChannelAuthSigner(key: key, secret: secret, masterKeyBase64: masterKey) }
    package static var restSigner: RESTRequestSigner { try! RESTRequestSigner(appID: appID, key: key, secret: secret) }

    package static let quietLogger = Logger.silent("test.hub")

    /// HTTP for everything that talks to a hub in tests: one request per connection, so no
    /// kept-alive connection to a stopped hub is ever reused (one was seen to hang for the
    /// transport's whole 60 s timeout after a restart), and idle connections closed quickly (a
    /// hub's graceful stop waits for them). Each request may take 10 s, stretched under a sanitizer
    /// (TestTiming): a ThreadSanitizer hub that writes to twenty stalled readers answered one batch
    /// after more than 10 s in CI.
    package static let http = AsyncHTTPClientHTTPTransport(client: {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.maximumUsesPerConnection = 1
        configuration.connectionPool.idleTimeout = .milliseconds(200)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }(), timeout: .seconds(Int64(10 * TestTiming.scale)))

    /// Test defaults: a fast close handshake; otherwise the hub's defaults.
    package static func limits(_ adjust: (inout HubLimits) -> Void = { _ in }) -> HubLimits {
        var limits = HubLimits { $0.connections.closeTimeout = 1 }
        adjust(&limits)
        return limits
    }

    /// The test app (with an encryption master key) on `port` (0: a free one).
    package static func configuration(
        port: Int = 0,
        limits: HubLimits = limits(),
        extraApps: [HubAppConfiguration] = [],
        adjustApp: (inout HubAppConfiguration) -> Void = { _ in }
    ) -> HubConfiguration {
        var app = HubAppConfiguration(id: appID, key: key, secret: secret, encryptionMasterKey: masterKey)
        adjustApp(&app)
        return HubConfiguration(host: "127.0.0.1", port: port, apps: [app] + extraApps, limits: limits)
    }

    /// Starts a hub with the test users behind `/pusher/auth` and `/pusher/user-auth`, keeping
    /// it a node of `cluster` when given.
    package static func start(
        _ configuration: HubConfiguration = configuration(),
        cluster: ClusterDrivers? = nil,
        logger: Logger = quietLogger,
        clock: any HubClock = SystemHubClock()
    ) async throws -> HubServer {
        try await DevelopmentHub(configuration: configuration, users: users).start(cluster: cluster, logger: logger, clock: clock)
    }

    /// Runs `body` with a started hub (its timers on `clock`) and stops it afterwards, also
    /// when `body` throws.
    @discardableResult
    package static func with<T>(
        _ configuration: HubConfiguration = configuration(), clock: any HubClock = SystemHubClock(), _ body: (HubServer) async throws -> T
    ) async throws -> T {
        let hub = try await start(configuration, clock: clock)
        return try await withCleanup { try await body(hub) } cleanup: { await hub.stop() }
    }

    /// Runs `body` with a started hub in a box, so that the body may restart it; stops it
    /// afterwards, also when `body` throws.
    @discardableResult
    package static func withBox<T>(_ configuration: HubConfiguration = configuration(), _ body: (HubBox) async throws -> T) async throws -> T {
        let box = HubBox(try await start(configuration))
        return try await withCleanup { try await body(box) } cleanup: { await box.hub.stop() }
    }

    /// Triggers `event` on `channels` through the signed HTTP API.
    package static func trigger(_ hub: HubServer, event: String, channels: [String], data: String) async throws {
        try await trigger(TestHTTP(hub), event: event, channels: channels, data: data)
    }

    /// Triggers `event` on `channels` through the signed HTTP API of the hub `http` reaches.
    package static func trigger(_ http: TestHTTP, event: String, channels: [String], data: String, excluding socketID: String? = nil) async throws {
        var object: [String: Any] = ["name": event, "channels": channels, "data": data]
        if let socketID { object["socket_id"] = socketID }
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let result = try await http.signed("POST", restSigner.eventsPath, body: String(decoding: body, as: UTF8.self))
        guard result.status == 200 else { throw ChildProcess.Failure("trigger answered HTTP \(result.status): \(result.body)") }
    }

    /// The user ids of a presence channel, from the hub's `/users` API.
    package static func users(_ hub: HubServer, channel: String) async throws -> Set<String> {
        try await users(TestHTTP(hub), channel: channel)
    }

    /// The user ids of a presence channel, from the `/users` API of the hub `http` reaches.
    package static func users(_ http: TestHTTP, channel: String) async throws -> Set<String> {
        let result = try await http.signed("GET", "/apps/\(appID)/channels/\(channel)/users")
        let users = result.json["users"] as? [[String: Any]] ?? []
        return Set(users.compactMap { $0["id"] as? String })
    }
}

/// Sends HTTP requests to a hub (through ``TestHub/http``), signed like the official server
/// libraries or raw.
package struct TestHTTP: Sendable {
    package let baseURL: URL

    package init(_ hub: HubServer) {
        baseURL = hub.httpURL
    }

    /// Requests to any server.
    package init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// A signed HTTP API request.
    package func signed(
        _ method: String,
        _ path: String,
        query: [String: String] = [:],
        body: String? = nil,
        signer: RESTRequestSigner = TestHub.restSigner,
        now: Date = Date()
    ) async throws -> HTTPResult {
        let bodyData = body.map { Data($0.utf8) }
        let signature = try signer.sign(method: method, path: path, query: query, body: bodyData, now: now)
        return try await raw(method, path + "?" + signature.percentEncodedQuery, body: bodyData, contentType: "application/json")
    }

    /// A form POST (auth endpoints).
    package func form(_ path: String, _ body: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await raw("POST", path, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    /// A request sent as it is.
    package func raw(
        _ method: String,
        _ pathAndQuery: String,
        body: Data? = nil,
        contentType: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var request = HTTPRequest(method: HTTPRequest.Method(method) ?? .get, url: URL(string: baseURL.absoluteString + pathAndQuery)!)
        if let contentType { request.headerFields[.contentType] = contentType }
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { throw ChildProcess.Failure("'\(name)' is not a header name") }
            request.headerFields[field] = value
        }
        let (response, data) = try await TestHub.http.send(request, body: body)
        return HTTPResult(status: response.status.code, body: String(decoding: data, as: UTF8.self), headers: response.headerFields)
    }
}

/// A plain HTTP answer.
package struct HTTPResult: Sendable {
    package let status: Int
    package let body: String
    /// The response's header fields.
    package var headers: HTTPFields = [:]

    /// The body as a JSON object (empty when it is not one).
    package var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}

/// The current hub of a test that restarts it.
package final class HubBox: @unchecked Sendable {
    package var hub: HubServer
    package init(_ hub: HubServer) { self.hub = hub }

    /// Stops the hub (clients get 4200) and starts a new one on the same port.
    package func restart() async throws {
        let configuration = hub.configuration
        await hub.stop()
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                hub = try await TestHub.start(configuration)
                return
            } catch {
                lastError = error
                // sleep: the pace of a retry (the port may still be held a moment), not a wait.
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        throw lastError!
    }
}
