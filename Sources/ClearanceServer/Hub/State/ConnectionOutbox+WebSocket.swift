import Logging
import NIOCore

extension ConnectionOutbox {
    /// Outboxes that write to `channels` exactly as a hub's WebSocket connections do (the same
    /// sink, the default limits, each frame counted in the app's `clearance_messages_sent_total`),
    /// without sockets: for `clearance bench`, which measures what one
    /// event costs on the fan-out path (its channels are embedded ones).
    package static func webSocketOutboxes(for channels: [any Channel]) throws -> [ConnectionOutbox] {
        let configuration = HubConfiguration(apps: [HubAppConfiguration(id: "bench", key: "bench", secret: "bench-secret")])
        let hub = try Hub(configuration: configuration, logger: Logger(label: "clearance.bench"))
        let sent = hub.metrics.app("bench").messagesSent
        return channels.map { ConnectionOutbox(sink: WebSocketFrameSink(channel: $0, shared: hub.connectionDependencies.sink, sent: sent)) }
    }
}
