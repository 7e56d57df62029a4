import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// What each connection accepted by the hub's server becomes: HTTP/1.1 for the HTTP API and the
/// mounted routes (Hummingbird's own handling), or, on a WebSocket upgrade, a
/// ``PusherChannelHandler`` on the bare channel. WebSocket connections thus cost no task beyond
/// the one the server parks on each connection until it closes: no writer task, no inbound
/// stream, no per-connection WebSocket machinery.
///
/// No connection may stall: until its first request head is read (the upgrade decision), a
/// connection has ``HubLimits/httpIdleTimeout`` in all; after that, HTTP requests are held to
/// the same idle timeout by Hummingbird's connection state handler, and WebSockets to the
/// Pusher timers.
struct HubChildChannel: ServerChildChannel, HTTPChannelHandler {
    enum Negotiated: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case webSocket(any Channel)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let hub: Hub
    let responder: HTTPChannelHandler.Responder

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let hub = hub
            let idleTimeout = Duration.seconds(hub.limits.httpIdleTimeout)  // at most an hour: validated
            let upgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
                maxFrameSize: hub.limits.maxMessageBytes,
                enableAutomaticErrorHandling: true,
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(PusherChannelHandler(
                            admission: hub.admission(path: head.uri, channel: channel), maxMessageBytes: hub.limits.maxMessageBytes))
                        return .webSocket(channel)
                    }
                }
            )
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration(upgraders: [upgrader]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                    try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
                    return .http(try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
                }
            }
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false  // NIOAsyncChannel reads one request at a time
            configuration.enableErrorHandling = false  // Hummingbird answers malformed requests
            configuration.enableResponseHeaderValidation = false  // swift-http-types validates them
            let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let stalled = channel.eventLoop.scheduleTask(in: TimeAmount(idleTimeout)) {
                channel.close(promise: nil)
            }
            negotiated.whenComplete { _ in stalled.cancel() }
            return Value(negotiated: negotiated, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case let .http(asyncChannel):
                await handleHTTP(asyncChannel: asyncChannel, logger: logger)
            case let .webSocket(channel):
                try await channel.closeFuture.get()
            }
        } catch {
            logger.debug("hub.connection.negotiationFailed", metadata: ["error": "\(String(describing: type(of: error)))"])
        }
    }
}
