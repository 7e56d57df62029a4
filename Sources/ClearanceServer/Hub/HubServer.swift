import Foundation
import Hummingbird
import Logging

/// A hub running in this process until ``stop()``: for tests, demos and apps that embed one.
/// (A hub run for real belongs in the app's `ServiceGroup`: see ``HubService``.)
///
/// ```swift
/// let hub = try await HubServer.start(HubConfiguration(port: 0, apps: [app]))
/// // connect clients to hub.webSocketURL(forKey: app.key), trigger through hub.httpURL
/// await hub.stop()
/// ```
@dynamicMemberLookup
public final class HubServer: Sendable {
    /// Where it can be reached.
    public let endpoint: HubEndpoint
    /// What the hub refused, cut or closed so far.
    public let counters: HubCounters
    private let services: BackgroundServices

    private init(endpoint: HubEndpoint, counters: HubCounters, services: BackgroundServices) {
        self.endpoint = endpoint
        self.counters = counters
        self.services = services
    }

    /// Starts a hub and returns once it accepts connections. The parameters are ``HubService``'s.
    /// - Throws: ``HubConfigurationError`` for an unusable configuration, or the server's error
    ///   when it cannot listen.
    public static func start(
        _ configuration: HubConfiguration,
        cluster: ClusterDrivers? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in },
        reloader: HubReloader? = nil,
        webhookQueue: (any WebhookQueue)? = nil,
        clock: any HubClock = SystemHubClock()
    ) async throws -> HubServer {
        let counters = HubCounters()
        let (services, endpoint) = try await BackgroundServices.start(logger: logger) { (ready: AsyncStream<HubEndpoint>.Continuation) in
            [HubService(configuration: configuration, cluster: cluster, logger: logger,
                        onReady: { ready.yield($0) }, additionalRoutes: additionalRoutes, counters: counters,
                        webhookQueue: webhookQueue, reloader: reloader, clock: clock)]
        }
        return HubServer(endpoint: endpoint, counters: counters, services: services)
    }

    /// The endpoint's properties: `configuration`, `host`, `port`, `httpURL`.
    public subscript<Value>(dynamicMember keyPath: KeyPath<HubEndpoint, Value>) -> Value {
        endpoint[keyPath: keyPath]
    }

    /// `ws://host:port`: the WebSocket endpoint's origin.
    public var webSocketURL: URL { endpoint.webSocketURL }

    /// `ws://host:port/app/KEY?protocol=7&…` for `key` (default: the first app's).
    public func webSocketURL(forKey key: String? = nil, protocolVersion: Int = 7) -> URL {
        endpoint.webSocketURL(forKey: key, protocolVersion: protocolVersion)
    }

    /// Stops accepting connections, closes every connection with 4200 (spread over
    /// ``HubConnectionLimits/shutdownSpread``), and waits for the end.
    public func stop() async {
        await services.stop()
    }
}
