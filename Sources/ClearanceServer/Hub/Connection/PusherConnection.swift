import Clearance
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// One client connection: admits it, then lives on one task, the one the WebSocket library gives
/// it (a task keeps the memory of its deepest await for as long as it lives):
///
/// - the task reads the client's messages and hands each, in turn, to a ``ConnectionSession``
///   (the next message is read once one is handled, so a client that floods the hub is slowed
///   down by TCP instead of filling memory);
/// - replies and published events go through the ``ConnectionOutbox`` straight to the channel
///   (``WebSocketFrameSink``), in one order;
/// - timers, the shutdown close and slow readers are the ``ConnectionControl``'s business, which
///   the hub's one ticker drives.
/// The connection ends when the client's side ends (its close frame,
/// a disconnect, or the hub dropping a client that ignored the hub's close frame).
struct PusherConnection: Sendable {
    let hub: Hub
    let app: HubApp
    let protocolVersion: Int
    let channel: any Channel

    /// Sends `pusher:error` with `code`, then closes with it.
    static func refuse(outbound: WebSocketOutboundWriter, code: HubCloseCode) async throws {
        try await outbound.write(.text(PusherFrame.error(code)))
        try await outbound.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: code.message)
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let admission = await hub.registry.admit(appID: app.id, appLimit: app.configuration.maxConnections, hubLimit: hub.limits.maxConnections)
        let socketID: String
        switch admission {
        case let .refused(code):
            hub.logger.info("hub.connection.refused", metadata: ["app_id": "\(app.id)", "code": "\(code.rawValue)"])
            try await Self.refuse(outbound: outbound, code: code)
            return
        case let .admitted(id):
            socketID = id
        }

        var logger = hub.logger
        logger[metadataKey: "socket_id"] = "\(socketID)"
        logger[metadataKey: "app_id"] = "\(app.id)"
        logger.info("hub.connection.opened", metadata: ["protocol": "\(protocolVersion)"])

        let outbox = ConnectionOutbox(sink: WebSocketFrameSink(
            channel: channel, outbound: outbound, maxQueuedFrames: hub.limits.maxQueuedFrames, logger: logger))
        let control = ConnectionControl(settings: ConnectionTimers.Settings(limits: hub.limits), outbox: outbox, channel: channel, logger: logger)
        await hub.adapter.addConnection(socketID: socketID, appID: app.id, outbox: outbox)
        outbox.deliver(.frame(PusherFrame.connectionEstablished(socketID: socketID, activityTimeout: hub.limits.activityTimeout)))
        if await !hub.registry.attach(control, socketID: socketID) {
            control.close(.reconnectImmediately)
        }

        var session = ConnectionSession(hub: hub, app: app, socketID: socketID, outbox: outbox, control: control, logger: logger)
        var readError: (any Error)?
        do {
            for try await message in inbound.messages(maxSize: hub.limits.maxMessageBytes) {
                await session.handle(message)
            }
        } catch {
            readError = error
        }
        await hub.adapter.removeConnection(socketID: socketID, appID: app.id)
        await hub.registry.remove(socketID: socketID)
        outbox.finish()
        logger.info("hub.connection.closed")
        // A message over the size limit ends the read with the library's own error; rethrowing
        // it lets the WebSocket layer close with 1009 rather than 1000.
        if let readError { throw readError }
    }
}
