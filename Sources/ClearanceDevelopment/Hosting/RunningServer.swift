import ClearanceServer
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// A development server started by ``start(_:host:port:server:services:logger:)``: any
/// Hummingbird router on loopback (port 0 picks a free one), its address, and a graceful
/// ``stop()``. The demo, the benchmarks and tests run the demo API, the development OAuth2
/// provider and their own fakes this way.
public final class RunningServer: Sendable {
    /// The host it listens on.
    public let host: String
    /// The port it got (the real one when asked for port 0).
    public let port: Int
    private let services: BackgroundServices

    private init(host: String, port: Int, services: BackgroundServices) {
        self.host = host
        self.port = port
        self.services = services
    }

    /// `http://host:port`.
    public var baseURL: URL { URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")! }

    /// Starts `responder` on `host:port` and returns once it accepts connections.
    public static func start<Builder: HTTPResponderBuilder>(
        _ responder: Builder,
        host: String = "127.0.0.1",
        port: Int = 0,
        server: HTTPServerBuilder = .http1(),
        services: [any Service] = [],
        logger: Logger = Logger(label: "clearance.server")
    ) async throws -> RunningServer where Builder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let (running, bound) = try await BackgroundServices.start(logger: logger) { (ready: AsyncStream<Int>.Continuation) in
            let app = Application(
                router: responder,
                server: server,
                configuration: .init(address: .hostname(host, port: port), serverName: "clearance"),
                onServerRunning: { channel in ready.yield(channel.localAddress?.port ?? port) },
                logger: logger
            )
            return [app] + services
        }
        return RunningServer(host: host, port: bound, services: running)
    }

    /// Stops accepting connections, lets in-flight requests finish, and waits for the end.
    public func stop() async {
        await services.stop()
    }
}
