import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// A hub as a `Service`, the way to run one for real: put it in the app's `ServiceGroup`
/// (listening for SIGTERM, as `clearance serve` does). It binds, hands its ``HubEndpoint`` to
/// `onReady`, and on graceful shutdown first stops listening (a client that reconnects at once
/// is refused by the operating system, not accepted and closed again), then closes every
/// connection with 4200 ("reconnect"), spread over ``HubConnectionLimits/shutdownSpread``, then waits (at
/// most ``HubWebhookLimits/webhookShutdownWait``) for pending webhooks, then ends the cluster link (a
/// node says goodbye) and stops.
///
/// One port serves WebSocket clients at `/app/{key}`, the HTTP API at `/apps/{id}/…`, and any
/// routes `additionalRoutes` mounts (an app's auth endpoints, say); with
/// ``HubConfiguration/tls``, all of it over TLS (`wss://`, `https://`).
///
/// When it starts it raises the process's soft descriptor limit to the hard one and keeps its
/// sockets within a budget below it (see ``HubConnectionLimits/maxConnections``): a `maxConnections` the
/// budget cannot hold is logged as a warning (`hub.descriptors.short`) naming both figures.
public struct HubService: Service {
    /// The configuration the hub starts with.
    public let configuration: HubConfiguration
    /// What the hub refused, cut or closed, readable while it runs.
    public let counters: HubCounters
    /// The hub's metrics and readiness, served by a ``HubMetricsService``.
    public let metrics: HubMetrics
    private let cluster: ClusterDrivers?
    private let webhookQueue: (any WebhookQueue)?
    private let logger: Logger
    private let onReady: @Sendable (HubEndpoint) async -> Void
    private let additionalRoutes: @Sendable (Router<BasicRequestContext>) -> Void
    private let reloader: HubReloader?
    private let clock: any HubClock

    /// - Parameters:
    ///   - configuration: Apps, limits, address (port 0 picks a free one).
    ///   - cluster: The cluster this hub is a node of (how the nodes reach each other, who
    ///     decides occupancy, where webhooks wait): nil, the default, for a hub on its own.
    ///   - logger: Where the hub logs. Secrets, tokens and signatures are never logged.
    ///   - onReady: Called once the hub accepts connections.
    ///   - additionalRoutes: Mounts more routes on the hub's HTTP server.
    ///   - counters: Where the hub counts what it refuses (a new ``HubCounters`` by default).
    ///   - webhookQueue: Where the apps' webhook events wait for delivery: by default the
    ///     cluster's (``ClusterDrivers/webhookQueue``: PostgreSQL's is in its database), else a
    ///     new ``InMemoryWebhookQueue``.
    ///   - metrics: Where the hub counts for Prometheus, and says whether it is ready (a new
    ///     ``HubMetrics`` by default: give the same one to a ``HubMetricsService``).
    ///   - reloader: Applies new configurations while the hub runs (apps, secrets, limits, the
    ///     TLS certificate): see ``HubReloader``.
    ///   - clock: The clock of every timer of the hub: the machine's by default, a
    ///     ``ManualHubClock`` in tests of time-based behaviour. (A stopping hub's spread and
    ///     waits use the machine's: they wait for real sockets.)
    public init(
        configuration: HubConfiguration,
        cluster: ClusterDrivers? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        onReady: @escaping @Sendable (HubEndpoint) async -> Void = { _ in },
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in },
        counters: HubCounters = HubCounters(),
        webhookQueue: (any WebhookQueue)? = nil,
        metrics: HubMetrics = HubMetrics(),
        reloader: HubReloader? = nil,
        clock: any HubClock = SystemHubClock()
    ) {
        self.clock = clock
        self.reloader = reloader
        self.configuration = configuration
        self.metrics = metrics
        self.webhookQueue = webhookQueue
        self.counters = counters
        self.cluster = cluster
        self.logger = logger
        self.onReady = onReady
        self.additionalRoutes = additionalRoutes
    }

    /// The hub's own child channel, behind HummingbirdTLS's `TLSChannel` (swift-nio-ssl) when the
    /// configuration has a certificate: the TLS handler is first in every accepted connection's
    /// pipeline, so WebSocket upgrades and the HTTP API alike are `wss://` and `https://`. Each
    /// handshake presents `identity`'s current certificate (a reload may replace it).
    /// - Throws: ``HubTLSError`` for a certificate or key that cannot be used.
    private static func server(hub: Hub, identity: HubTLSIdentity?) throws -> HTTPServerBuilder {
        let dependencies = hub.childChannelDependencies
        guard let identity else { return HTTPServerBuilder { responder in HubChildChannel(hub: dependencies, responder: responder) } }
        return try .tls(
            HTTPServerBuilder { responder in HubChildChannel(hub: dependencies, responder: responder, secure: true) },
            tlsConfiguration: identity.serverConfiguration)
    }

    /// Runs until the group shuts down.
    /// - Throws: ``HubConfigurationError`` for an unusable configuration, ``HubTLSError`` for an
    ///   unusable certificate or key, or the server's error when it cannot listen.
    public func run() async throws {
        let descriptors = DescriptorLimit.raised()
        let hub = try Hub(
            configuration: configuration, cluster: cluster, logger: logger, counters: counters,
            socketBudget: descriptors?.budget ?? .max,
            webhookQueue: webhookQueue ?? cluster?.webhookQueue(configuration.limits), metrics: metrics, clock: clock)
        if let descriptors, descriptors.budget < configuration.limits.connections.maxConnections {
            logger.warning("hub.descriptors.short", metadata: [
                "maxConnections": "\(configuration.limits.connections.maxConnections)", "socketBudget": "\(descriptors.budget)",
                "descriptorLimit": "\(descriptors.limit)", "hint": "raise the hard limit (ulimit -Hn, LimitNOFILE=) or lower maxConnections",
            ])
        }
        let identity = try configuration.tls.map { tls throws(HubTLSError) in try HubTLSIdentity(tls) }
        let router = Router()
        HubHTTPAPI(hub: hub.httpAPIDependencies).register(on: router)
        additionalRoutes(router)
        let configuration = configuration
        let logger = logger
        let onReady = onReady
        let metrics = metrics
        let listener = ServerListener()
        let app = Application(
            router: router,
            server: try Self.server(hub: hub, identity: identity),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "clearance"),
            onServerRunning: { channel in
                listener.bound(channel)
                var bound = configuration
                bound.port = channel.localAddress?.port ?? configuration.port
                logger.info("hub.started", metadata: [
                    "host": "\(bound.host)", "port": "\(bound.port)", "apps": "\(bound.apps.map(\.id).joined(separator: ","))",
                ])
                metrics.accepting(true)
                await onReady(HubEndpoint(configuration: bound))
            },
            logger: logger
        )
        // The server's group is reached by this service's graceful shutdown: Hummingbird closes
        // its listening socket at once, lets its HTTP connections finish, and waits for the
        // WebSockets, which the hub closes itself, in its own order.
        let server = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        reloader?.attach(hub, tls: identity)
        defer { reloader?.detach() }
        try await withThrowingTaskGroup(of: Void.self) { ticking in
            ticking.addTask { await hub.runTicker() }
            ticking.addTask { await hub.runPendingDisconnects() }
            ticking.addTask { await hub.runUserTerminations() }
            ticking.addTask { await hub.runSubscriptionCounts() }
            ticking.addTask { await hub.runHistoryPurge() }
            ticking.addTask { await hub.runOutbox() }
            ticking.addTask { await hub.webhooks.run() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await hub.channels.run() }
                group.addTask { try await server.run() }
                group.addTask {
                    // Returns when shutdown begins; throws only if the hub is cancelled instead.
                    guard (try? await gracefulShutdown()) != nil else { return }
                    metrics.accepting(false)
                    await server.triggerGracefulShutdown()
                    await listener.closed()
                    await hub.closeAllConnections()
                    await hub.webhooks.drain()
                    await hub.channels.shutdown()
                }
                try await group.waitForAll()
            }
            ticking.cancelAll()
        }
        metrics.accepting(false)
        logger.info("hub.stopped")
    }
}
