import AsyncHTTPClient
import Clearance
import ClearanceChannels
import ClearanceHTTP
import ClearanceServer
import ClearanceSigning
import Foundation
import HTTPTypes
import Logging
import Testing

/// A hub on loopback with a known app and users, and helpers to drive it.
enum HubFixture {
    static let appID = "1234"
    static let key = "test-key"
    static let secret = "test-secret"
    static let masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
    static let alice = DevelopmentUser(token: "alice-token", id: "alice", info: .object(["name": .string("Alice")]))
    static let bob = DevelopmentUser(token: "bob-token", id: "bob", info: .object(["name": .string("Bob")]))
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// HTTP for everything that talks to a hub in these tests: one request per connection, so no
    /// kept-alive connection to a stopped hub is ever reused (one was seen to hang for the
    /// transport's whole 60 s timeout after a restart), and idle connections closed quickly.
    static let http = AsyncHTTPClientTransport(client: {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.maximumUsesPerConnection = 1
        // A connection opened for a request that was then cancelled sits idle in the pool, and
        // the hub's graceful stop waits for it (60 s with AsyncHTTPClient's default idle timeout).
        configuration.connectionPool.idleTimeout = .milliseconds(200)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }(), timeout: .seconds(10))

    static var signer: ChannelAuthSigner { try! ChannelAuthSigner(key: key, secret: secret, masterKeyBase64: masterKey) }
    static var restSigner: RESTRequestSigner { try! RESTRequestSigner(appID: appID, key: key, secret: secret) }

    static func configuration(port: Int = 0) -> HubConfiguration {
        HubConfiguration(
            host: "127.0.0.1", port: port,
            apps: [HubAppConfiguration(id: appID, key: key, secret: secret, encryptionMasterKey: masterKey)],
            users: [alice, bob],
            limits: HubLimits(closeTimeout: 1)
        )
    }

    static func start(port: Int = 0) async throws -> HubServer {
        try await HubServer.start(configuration(port: port), logger: quiet)
    }

    /// Runs `body` with a started hub (handed over in a box, so the body may restart it).
    @discardableResult
    static func with<T>(_ body: (HubBox) async throws -> T) async throws -> T {
        let box = HubBox(try await start())
        do {
            let result = try await body(box)
            let t0 = ContinuousClock.now
            await box.hub.stop()
            if ProcessInfo.processInfo.environment["CHANNELS_TRACE"] != nil { print("hub.stop \(ContinuousClock.now - t0)") }
            return result
        } catch {
            await box.hub.stop()
            throw error
        }
    }

    /// Options for a client of `hub`: fast reconnects, short timeouts, quiet.
    static func options(_ port: Int, authorizer: (any ChannelAuthorizer)? = nil, userAuthenticator: (any UserAuthenticator)? = nil) -> ChannelClientOptions {
        ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: port),
            connectTimeout: .seconds(5),
            authorizer: authorizer,
            userAuthenticator: userAuthenticator,
            authorizationTimeout: .seconds(15),
            authorizationRetry: AuthorizationRetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(50)),
            reconnectPolicy: ReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitter: 0.1),
            logger: quiet
        )
    }

    /// The hub's own auth endpoint, calling as `user`.
    static func serverAuthorizer(_ hub: HubServer, token: String) throws -> ServerChannelAuthorizer {
        try ServerChannelAuthorizer(
            endpoint: hub.httpURL.appendingPathComponent("pusher/auth"),
            headers: [.authorization: "Bearer \(token)"],
            transport: http
        )
    }

    /// Triggers `event` on `channels` through the signed HTTP API, as the server libraries do.
    static func trigger(_ hub: HubServer, event: String, channels: [String], data: String) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["name": event, "channels": channels, "data": data], options: [.sortedKeys])
        let result = try await signedRequest(hub, method: .post, path: restSigner.eventsPath, body: body)
        #expect(result.status == 200, "trigger failed: \(result.body)")
    }

    /// The user ids of a presence channel, from the hub's `/users` API.
    static func users(_ hub: HubServer, channel: String) async throws -> Set<String> {
        let path = "/apps/\(appID)/channels/\(channel)/users"
        let result = try await signedRequest(hub, method: .get, path: path, body: nil)
        let object = try JSONSerialization.jsonObject(with: Data(result.body.utf8)) as? [String: Any]
        let users = object?["users"] as? [[String: Any]] ?? []
        return Set(users.compactMap { $0["id"] as? String })
    }

    private static func signedRequest(_ hub: HubServer, method: HTTPRequest.Method, path: String, body: Data?) async throws -> (status: Int, body: String) {
        let signature = try restSigner.sign(method: method.rawValue, path: path, body: body)
        let url = URL(string: hub.httpURL.absoluteString + path + "?" + signature.percentEncodedQuery)!
        var request = HTTPRequest(method: method, url: url)
        if body != nil { request.headerFields[.contentType] = "application/json" }
        let (response, data) = try await http.send(request, body: body)
        return (response.status.code, String(decoding: data, as: UTF8.self))
    }
}

/// The current hub of a test that restarts it.
final class HubBox: @unchecked Sendable {
    var hub: HubServer
    init(_ hub: HubServer) { self.hub = hub }

    /// Stops the hub (clients get 4200) and starts a new one on the same port.
    func restart() async throws {
        let port = hub.port
        await hub.stop()
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                hub = try await HubFixture.start(port: port)
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        throw lastError!
    }
}

/// Waits until `condition` holds, polling; fails the test after `timeout`.
func eventually(
    _ what: String,
    timeout: Duration = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// The first element of `sequence` matching `predicate`, within `timeout`.
func first<S: AsyncSequence & Sendable>(
    _ sequence: S,
    timeout: Duration = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    where predicate: @escaping @Sendable (S.Element) -> Bool
) async throws -> S.Element where S.Element: Sendable {
    try await withThrowingTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            for try await element in sequence where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else {
            Issue.record("timed out waiting for an element", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return found
    }
}

/// Records every authorization the client asks for, and forwards it.
final class RecordingAuthorizer: ChannelAuthorizer, @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [(socketID: String, channel: String)] = []
    let base: any ChannelAuthorizer

    init(_ base: any ChannelAuthorizer) { self.base = base }

    var recorded: [(socketID: String, channel: String)] { lock.withLock { calls } }

    func authorize(socketID: String, channelName: String) async throws -> ChannelAuthorization {
        lock.withLock { calls.append((socketID, channelName)) }
        return try await base.authorize(socketID: socketID, channelName: channelName)
    }
}
