import ClearanceServer
import ClearanceSigning
import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hub on loopback with a known app and users, and helpers to talk to it.
enum TestHub {
    static let appID = "1234"
    static let key = "test-key"
    static let secret = "test-secret"
    /// Base64 of the 32 bytes 0x00…0x1f.
    static let masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()

    static let alice = DevelopmentUser(token: "alice-token", id: "alice", info: .object(["name": .string("Alice")]))
    static let bob = DevelopmentUser(token: "bob-token", id: "bob", info: .object(["name": .string("Bob")]))
    static let carol = DevelopmentUser(token: "carol-token", id: "carol")

    static var signer: ChannelAuthSigner {
        try! ChannelAuthSigner(key: key, secret: secret, masterKeyBase64: masterKey)
    }

    static var restSigner: RESTRequestSigner {
        try! RESTRequestSigner(appID: appID, key: key, secret: secret)
    }

    static let quietLogger = Logger(label: "test.hub") { _ in SwiftLogNoOpLogHandler() }

    /// Test defaults: fast close handshake; otherwise the hub's defaults.
    static func limits(_ adjust: (inout HubLimits) -> Void = { _ in }) -> HubLimits {
        var limits = HubLimits(closeTimeout: 2)
        adjust(&limits)
        return limits
    }

    static func configuration(
        limits: HubLimits = limits(),
        extraApps: [HubAppConfiguration] = [],
        adjustApp: (inout HubAppConfiguration) -> Void = { _ in }
    ) -> HubConfiguration {
        var app = HubAppConfiguration(id: appID, key: key, secret: secret, encryptionMasterKey: masterKey)
        adjustApp(&app)
        return HubConfiguration(host: "127.0.0.1", port: 0, apps: [app] + extraApps, users: [alice, bob, carol], limits: limits)
    }

    /// Runs `body` with a started hub and stops it afterwards, also when `body` throws.
    static func with<T>(
        _ configuration: HubConfiguration = configuration(),
        _ body: (HubServer) async throws -> T
    ) async throws -> T {
        let hub = try await HubServer.start(configuration, logger: quietLogger)
        do {
            let result = try await body(hub)
            await hub.stop()
            return result
        } catch {
            await hub.stop()
            throw error
        }
    }

    /// Connects and waits for `pusher:connection_established`; returns the client and its socket id.
    static func connect(
        _ hub: HubServer,
        key: String? = nil,
        protocolVersion: Int = 7
    ) async throws -> (client: TestWebSocketClient, socketID: String) {
        let client = try TestWebSocketClient(url: hub.webSocketURL(forKey: key, protocolVersion: protocolVersion))
        let established = try await client.next(event: "pusher:connection_established")
        guard let socketID = established.dataObject["socket_id"] as? String else {
            throw TestWebSocketClient.Failure(description: "no socket_id in \(established)")
        }
        return (client, socketID)
    }

    /// `pusher:subscribe` for `channel`, signed with the test secret unless `auth` is given.
    static func subscribeFrame(channel: String, socketID: String, channelData: String? = nil, auth: String? = nil) -> String {
        var data: [String: String] = ["channel": channel]
        let kind = ChannelNameKind(channelName: channel)
        if let auth {
            data["auth"] = auth
        } else if kind.requiresAuthorization {
            data["auth"] = try! signer.authorizeChannel(socketID: socketID, channelName: channel, channelData: channelData).auth
        }
        if let channelData { data["channel_data"] = channelData }
        return frame(event: "pusher:subscribe", data: data)
    }

    /// Subscribes and waits for success.
    @discardableResult
    static func subscribe(
        _ client: TestWebSocketClient,
        socketID: String,
        channel: String,
        channelData: String? = nil
    ) async throws -> ReceivedFrame {
        client.send(subscribeFrame(channel: channel, socketID: socketID, channelData: channelData))
        return try await client.next(event: "pusher_internal:subscription_succeeded", channel: channel)
    }

    static func frame(event: String, channel: String? = nil, data: Any) -> String {
        var object: [String: Any] = ["event": event, "data": data]
        if let channel { object["channel"] = channel }
        let bytes = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: bytes, as: UTF8.self)
    }

    static func presenceData(_ userID: String, info: String? = nil) -> String {
        info.map { #"{"user_id":"\#(userID)","user_info":\#($0)}"# } ?? #"{"user_id":"\#(userID)"}"#
    }
}

/// A plain HTTP response.
struct HTTPResult: Sendable {
    let status: Int
    let body: String

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}

/// Sends HTTP requests to a hub, signed like the official server libraries or raw.
struct TestHTTP: Sendable {
    let baseURL: URL

    init(_ hub: HubServer) {
        baseURL = hub.httpURL
    }

    /// A signed HTTP API request.
    func signed(
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
    func form(_ path: String, _ body: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await raw("POST", path, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    func raw(
        _ method: String,
        _ pathAndQuery: String,
        body: Data? = nil,
        contentType: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + pathAndQuery)!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return HTTPResult(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: String(decoding: data, as: UTF8.self))
    }
}
