import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// A hub as a `Service`, the way to run one for real: put it in the app's `ServiceGroup`
/// (listening for SIGTERM, as `clearance serve` does). It binds, hands its ``HubEndpoint`` to
/// `onReady`, and on graceful shutdown closes every connection with 4200 before it stops.
///
/// One port serves WebSocket clients at `/app/{key}`, the HTTP API at `/apps/{id}/…`, and any
/// routes `additionalRoutes` mounts (an app's auth endpoints, say).
public struct HubService: Service {
    /// The configuration the hub starts with.
    public let configuration: HubConfiguration
    private let adapter: (any ChannelStateAdapter)?
    private let logger: Logger
    private let onReady: @Sendable (HubEndpoint) async -> Void
    private let additionalRoutes: @Sendable (Router<BasicRequestContext>) -> Void

    /// - Parameters:
    ///   - configuration: Apps, limits, address (port 0 picks a free one).
    ///   - adapter: Channel state; a new ``InMemoryChannelState`` by default.
    ///   - logger: Where the hub logs. Secrets, tokens and signatures are never logged.
    ///   - onReady: Called once the hub accepts connections.
    ///   - additionalRoutes: Mounts more routes on the hub's HTTP server.
    public init(
        configuration: HubConfiguration,
        adapter: (any ChannelStateAdapter)? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        onReady: @escaping @Sendable (HubEndpoint) async -> Void = { _ in },
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.adapter = adapter
        self.logger = logger
        self.onReady = onReady
        self.additionalRoutes = additionalRoutes
    }

    /// Runs until the group shuts down.
    /// - Throws: ``HubConfigurationError`` for an unusable configuration, or the server's error
    ///   when it cannot listen.
    public func run() async throws {
        let hub = try Hub(configuration: configuration, adapter: adapter ?? InMemoryChannelState(), logger: logger)
        let router = Router()
        HubHTTPAPI(hub: hub).register(on: router)
        additionalRoutes(router)
        let configuration = configuration
        let logger = logger
        let onReady = onReady
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: hub.webSocketConfiguration)) { request, channel, logger in
                hub.shouldUpgrade(request, channel: channel, logger: logger)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "clearance"),
            onServerRunning: { channel in
                var bound = configuration
                bound.port = channel.localAddress?.port ?? configuration.port
                logger.info("hub.started", metadata: [
                    "host": "\(bound.host)", "port": "\(bound.port)", "apps": "\(bound.apps.map(\.id).joined(separator: ","))",
                ])
                await onReady(HubEndpoint(configuration: bound))
            },
            logger: logger
        )
        // Shut down in reverse order: the connections are closed with 4200 before the server stops.
        let group = ServiceGroup(configuration: .init(services: [app, HubShutdownService(hub: hub)], gracefulShutdownSignals: [], logger: logger))
        try await group.run()
        logger.info("hub.stopped")
    }
}
