import Logging
import ServiceLifecycle

/// Runs services in their own `ServiceGroup` on a background task until ``stop()``: how a hub
/// (``HubServer``) and the development servers run inside a process that has other work (tests,
/// the demo, an app embedding them). A server run for real belongs in the app's own group
/// (``HubService``), where SIGTERM reaches it.
package final class BackgroundServices: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(group: ServiceGroup, task: Task<Void, any Error>) {
        self.group = group
        self.task = task
    }

    /// Starts the services `make` returns and waits until one of them yields to `ready` (the
    /// address it bound, say). Throws the group's error when it ends before that.
    package static func start<Ready: Sendable>(
        logger: Logger,
        _ make: (AsyncStream<Ready>.Continuation) throws -> [any Service]
    ) async throws -> (BackgroundServices, Ready) {
        let (readyStream, ready) = AsyncStream<Ready>.makeStream()
        let services = try make(ready)
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { ready.finish() }
            try await group.run()
        }
        var iterator = readyStream.makeAsyncIterator()
        guard let value = await iterator.next() else {
            // The group ended before it was ready: report why (a bind failure, a bad configuration).
            try await task.value
            throw CancellationError()
        }
        return (BackgroundServices(group: group, task: task), value)
    }

    /// Shuts the services down gracefully (in reverse order) and waits until they have ended.
    package func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
