import Hummingbird
import Logging
import ServiceLifecycle

/// A hub as a `Service`: starts it, hands it to `onReady`, and stops it (connections closed
/// with 4200) when the service group shuts down — on SIGINT/SIGTERM when the group listens for
/// them, as `clearance serve` does.
public struct HubService: Service {
    /// The configuration the hub starts with.
    public let configuration: HubConfiguration
    private let adapter: (any ChannelStateAdapter)?
    private let logger: Logger
    private let onReady: @Sendable (HubServer) async -> Void
    private let additionalRoutes: @Sendable (Router<BasicRequestContext>) -> Void

    /// - Parameters:
    ///   - configuration: Apps, users, limits, address.
    ///   - adapter: Channel state; in memory by default.
    ///   - logger: Where the hub logs.
    ///   - onReady: Called once the hub accepts connections.
    ///   - additionalRoutes: Mounts more routes on the hub's HTTP server.
    public init(
        configuration: HubConfiguration,
        adapter: (any ChannelStateAdapter)? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        onReady: @escaping @Sendable (HubServer) async -> Void = { _ in },
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) {
        self.additionalRoutes = additionalRoutes
        self.configuration = configuration
        self.adapter = adapter
        self.logger = logger
        self.onReady = onReady
    }

    /// Runs until the group shuts down.
    public func run() async throws {
        let hub = try await HubServer.start(configuration, adapter: adapter, logger: logger, additionalRoutes: additionalRoutes)
        await onReady(hub)
        try? await gracefulShutdown()
        logger.info("hub.stopping")
        await hub.stop()
        logger.info("hub.stopped")
    }
}
