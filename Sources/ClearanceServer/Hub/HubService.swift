import Clearance
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// A hub as a `Service`, the way to run one for real: put it in the app's `ServiceGroup`
/// (listening for SIGTERM, as `clearance serve` does). It binds, hands its ``HubEndpoint`` to
/// `onReady`, and on graceful shutdown first stops listening (a client that reconnects at once
/// is refused by the operating system, not accepted and closed again), then closes every
/// connection with 4200 ("reconnect"), spread over ``HubLimits/shutdownSpread``, then ends the
/// adapter's work (a cluster node says goodbye) and stops.
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
        let adapter = adapter ?? InMemoryChannelState()
        let hub = try Hub(configuration: configuration, adapter: adapter, logger: logger)
        let router = Router()
        HubHTTPAPI(hub: hub).register(on: router)
        additionalRoutes(router)
        let configuration = configuration
        let logger = logger
        let onReady = onReady
        let listener = ServerListener()
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: hub.webSocketConfiguration)) { request, channel, logger in
                hub.shouldUpgrade(request, channel: channel, logger: logger)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "clearance"),
            onServerRunning: { channel in
                await listener.bound(channel)
                var bound = configuration
                bound.port = channel.localAddress?.port ?? configuration.port
                logger.info("hub.started", metadata: [
                    "host": "\(bound.host)", "port": "\(bound.port)", "apps": "\(bound.apps.map(\.id).joined(separator: ","))",
                ])
                await onReady(HubEndpoint(configuration: bound))
            },
            logger: logger
        )
        // Hummingbird's own graceful shutdown closes every WebSocket with 1000 at once (not the
        // Pusher 4200 that makes clients come back soon). So the server runs in a group of its own
        // that the group running this service does not reach, and the hub stops in its own order:
        // the listening socket, its WebSockets (4200, spread), its last HTTP connections (once
        // idle), whereupon the server ends by itself; then the adapter.
        let server = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let stopping = Locked(false)
        try await withThrowingTaskGroup(of: Void.self) { ticking in
            ticking.addTask { await hub.runTicker() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await adapter.run() }
                group.addTask {
                    do {
                        try await Self.runUnreachedByGracefulShutdown(server)
                    } catch where stopping.withLock({ $0 }) {
                        // With its listening socket closed, the server ends by itself as soon as its
                        // last connection has; its group then reports it as ended unexpectedly.
                        logger.debug("hub.server.ended", metadata: ["reason": "\(error)"])
                    }
                }
                group.addTask {
                    // Returns when shutdown begins; throws only if the hub is cancelled instead.
                    guard (try? await gracefulShutdown()) != nil else { return }
                    stopping.withLock { $0 = true }
                    await listener.close()
                    await hub.closeAllConnections()
                    if await !listener.quiesce(timeout: .seconds(configuration.limits.closeTimeout)) {
                        // An HTTP request that does not end: Hummingbird's shutdown takes over.
                        await server.triggerGracefulShutdown()
                    }
                    await adapter.shutdown()
                }
                try await group.waitForAll()
            }
            ticking.cancelAll()
        }
        logger.info("hub.stopped")
    }

    /// Runs `group` in a task that does not inherit this one's graceful shutdown (its cancellation
    /// is passed on): the group shuts down only when told.
    private static func runUnreachedByGracefulShutdown(_ group: ServiceGroup) async throws {
        let task = Task.detached { try await group.run() }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
