import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The operational endpoints of a hub, on a port of their own (``HubMetricsConfiguration``), as
/// a `Service`:
///
/// - `GET /metrics`: every ``HubMetrics`` family in the Prometheus text format (0.0.4);
/// - `GET /health`: 200 while the process runs;
/// - `GET /ready`: 200 while the hub accepts connections; 503 before it listens and from the
///   moment it begins shutting down (SIGTERM) until it exits, so that a load balancer stops
///   sending clients to a draining node.
///
/// Its resources are bounded: ``maxConnections`` at once, each closed after ``idleTimeout``
/// seconds idle, and closed when a request has not arrived whole within ``requestTimeout``
/// (however slowly it is trickled, as the hub's own port does); requests have no body to read.
///
/// Put it in the `ServiceGroup` *before* the ``HubService`` sharing its ``HubMetrics``: a group
/// shuts its services down in reverse order, so these endpoints keep answering (`/ready` 503)
/// while the hub drains, and stop once it is gone.
public struct HubMetricsService: Service {
    /// Connections served at once (more wait in a backlog as long, then are refused by the
    /// operating system): a scraper and a few probes need a handful.
    public static let maxConnections = 16
    /// Seconds a connection may stay idle before it is closed.
    public static let idleTimeout: Int64 = 10
    /// Seconds within which each request must arrive whole, counted from the accept or the
    /// previous request's end.
    public static let requestTimeout: Int64 = 5

    /// Where the endpoints listen.
    public let configuration: HubMetricsConfiguration
    /// What `/metrics` and `/ready` read.
    public let metrics: HubMetrics
    private let logger: Logger
    private let onReady: @Sendable (_ host: String, _ port: Int) async -> Void

    /// - Parameters:
    ///   - configuration: The address (port 0 picks a free one).
    ///   - metrics: The hub's metrics (the same instance given to its ``HubService``).
    ///   - logger: Where the endpoints' server logs.
    ///   - onReady: Called with the bound address once the endpoints listen.
    public init(
        configuration: HubMetricsConfiguration,
        metrics: HubMetrics,
        logger: Logger = Logger(label: "clearance.metrics"),
        onReady: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.onReady = onReady
    }

    /// Serves until the group shuts down.
    /// - Throws: The server's error when it cannot listen.
    public func run() async throws {
        let router = Router()
        let metrics = metrics
        router.get("/metrics") { _, _ in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(16_384)
            metrics.emit(into: &bytes)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("/health") { _, _ in Self.text(.ok, "ok\n") }
        router.get("/ready") { _, _ in
            metrics.isReady ? Self.text(.ok, "ready\n") : Self.text(.serviceUnavailable, "not ready\n")
        }
        let configuration = configuration
        let logger = logger
        let onReady = onReady
        let app = Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [MetricsRequestDeadline(timeout: .seconds(Self.requestTimeout))],
                idleTimeout: .seconds(Self.idleTimeout))),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "clearance-metrics",
                backlog: Self.maxConnections, availableConnectionsDelegate: MaximumAvailableConnections(Self.maxConnections, logger: logger)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                logger.info("metrics.started", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
                await onReady(configuration.host, port)
            },
            logger: logger
        )
        try await app.run()
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
