import ClearanceSigning
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

/// A running Pusher-compatible hub: WebSocket clients at `/app/{key}`, the HTTP API at
/// `/apps/{id}/…`, and the auth endpoints `/pusher/auth` and `/pusher/user-auth` (backed by the
/// configuration's development users and the first app's credentials), all on one port.
///
/// ```swift
/// let hub = try await HubServer.start(HubConfiguration(port: 0, apps: [app], users: users))
/// // connect clients to hub.webSocketURL(forKey: app.key), trigger through hub.httpURL
/// await hub.stop()
/// ```
public final class HubServer: Sendable {
    /// The configuration it runs with (with the port it actually bound).
    public let configuration: HubConfiguration
    private let server: RunningServer
    private let hub: Hub

    private init(configuration: HubConfiguration, server: RunningServer, hub: Hub) {
        self.configuration = configuration
        self.server = server
        self.hub = hub
    }

    /// Starts a hub and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - configuration: Apps, users, limits, and where to listen (port 0 picks a free one).
    ///   - adapter: Where channel state lives; a new ``InMemoryChannelState`` by default.
    ///   - logger: Where the hub logs. Secrets, tokens and signatures are never logged.
    ///   - additionalRoutes: Mounts more routes on the hub's HTTP server (e.g. the development OAuth2 provider).
    /// - Throws: ``HubConfigurationError`` for an unusable configuration, or the server's
    ///   error when it cannot listen.
    public static func start(
        _ configuration: HubConfiguration,
        adapter: (any ChannelStateAdapter)? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        additionalRoutes: @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) async throws -> HubServer {
        let hub = try Hub(configuration: configuration, adapter: adapter ?? InMemoryChannelState(), logger: logger)
        let router = Router()
        HubHTTPAPI(hub: hub).register(on: router)
        additionalRoutes(router)
        DevelopmentUserDirectory(users: configuration.users).endpoints(signer: hub.defaultApp.signer).register(on: router)

        let server = try await RunningServer.start(
            router,
            host: configuration.host,
            port: configuration.port,
            server: .http1WebSocketUpgrade(configuration: .init(ws: hub.webSocketConfiguration)) { request, channel, logger in
                hub.shouldUpgrade(request, channel: channel, logger: logger)
            },
            services: [HubShutdownService(hub: hub)],
            logger: logger
        )
        var bound = configuration
        bound.port = server.port
        logger.info("hub.started", metadata: [
            "host": "\(configuration.host)",
            "port": "\(server.port)",
            "apps": "\(configuration.apps.map(\.id).joined(separator: ","))",
        ])
        return HubServer(configuration: bound, server: server, hub: hub)
    }

    /// The host it listens on.
    public var host: String { server.host }

    /// The port it listens on.
    public var port: Int { server.port }

    /// `http://host:port`: the HTTP API and the auth endpoints.
    public var httpURL: URL { server.baseURL }

    /// `ws://host:port`: the WebSocket endpoint's origin.
    public var webSocketURL: URL {
        URL(string: "ws://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
    }

    /// `ws://host:port/app/KEY?protocol=7&client=…&version=…` for `key` (default: the first app's).
    public func webSocketURL(forKey key: String? = nil, protocolVersion: Int = 7) -> URL {
        let key = key ?? configuration.apps[0].key
        let escaped = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key
        return URL(string: "\(webSocketURL.absoluteString)/app/\(escaped)?protocol=\(protocolVersion)&client=clearance-swift&version=1.0.0")!
    }

    /// Closes every connection with 4200, stops accepting connections, and waits for the end.
    public func stop() async {
        await server.stop()
    }
}
