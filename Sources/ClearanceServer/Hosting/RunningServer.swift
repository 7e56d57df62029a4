import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// A server started by ``RunningServer/start(_:host:port:server:logger:)``: its address, and a
/// graceful ``stop()`` (through `ServiceGroup.triggerGracefulShutdown()`).
public final class RunningServer: Sendable {
    /// The host it listens on.
    public let host: String
    /// The port it got (the real one when asked for port 0).
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(host: String, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.group = group
        self.task = task
    }

    /// `http://host:port`.
    public var baseURL: URL { URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")! }

    /// Starts `responder` on `host:port` (port 0 picks a free one) and returns once it accepts connections.
    public static func start<Builder: HTTPResponderBuilder>(
        _ responder: Builder,
        host: String = "127.0.0.1",
        port: Int = 0,
        server: HTTPServerBuilder = .http1(),
        services: [any Service] = [],
        logger: Logger = Logger(label: "clearance.server")
    ) async throws -> RunningServer where Builder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: responder,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "clearance"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? port)
                portContinuation.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app] + services, gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = portStream.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            // The server stopped before it was running: report why.
            try await task.value
            throw CancellationError()
        }
        return RunningServer(host: host, port: bound, group: group, task: task)
    }

    /// Stops accepting connections, lets in-flight requests finish, and waits for the end.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
