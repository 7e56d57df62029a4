import Clearance
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// One client connection: admits it, then lives on two tasks, as a bare broadcaster on the same
/// stack does:
///
/// - the connection's own task reads the client's messages and hands each, in turn, to a
///   ``ConnectionSession`` (the next message is read once one is handled, so a client that
///   floods the hub is slowed down by TCP instead of filling memory);
/// - a writer task drains the ``ConnectionOutbox`` into the WebSocket, so that replies and
///   published events share one ordered queue.
///
/// Timers, the shutdown close and slow readers are the ``ConnectionControl``'s business, which
/// the hub's one ticker drives. The connection ends when the client's side ends (its close frame,
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

        let (items, itemContinuation) = AsyncStream<ConnectionOutbox.Item>.makeStream(
            bufferingPolicy: .bufferingOldest(hub.limits.maxQueuedFrames)
        )
        let control = Locked<ConnectionControl?>(nil)
        let maxQueuedFrames = hub.limits.maxQueuedFrames
        let outbox = ConnectionOutbox(continuation: itemContinuation) {
            control.withLock { $0 }?.overflowed(maxQueuedFrames: maxQueuedFrames)
        }
        let connectionControl = ConnectionControl(settings: ConnectionTimers.Settings(limits: hub.limits), outbox: outbox, channel: channel, logger: logger)
        control.withLock { $0 = connectionControl }
        await hub.adapter.addConnection(socketID: socketID, appID: app.id, outbox: outbox)
        outbox.deliver(.frame(PusherFrame.connectionEstablished(socketID: socketID, activityTimeout: hub.limits.activityTimeout)))
        if await !hub.registry.attach(connectionControl, socketID: socketID) {
            connectionControl.close(.reconnectImmediately)
        }

        var session = ConnectionSession(hub: hub, app: app, socketID: socketID, outbox: outbox, control: connectionControl, logger: logger)
        async let writing: Void = Self.write(items, to: outbound)
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
        await writing
        logger.info("hub.connection.closed")
        // A message over the size limit ends the read with the library's own error; rethrowing
        // it lets the WebSocket layer close with 1009 rather than 1000.
        if let readError { throw readError }
    }

    private static func write(_ items: AsyncStream<ConnectionOutbox.Item>, to outbound: WebSocketOutboundWriter) async {
        do {
            for await item in items {
                switch item {
                case let .delivery(delivery):
                    try await outbound.write(.text(text(of: delivery)))
                case let .close(code):
                    try await outbound.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: code.message)
                    return
                }
            }
        } catch {
            // The client is gone or the connection is closing: nothing more can be written.
        }
    }

    private static func text(of delivery: ConnectionOutbox.Delivery) -> String {
        switch delivery {
        case let .frame(text):
            text
        case let .subscriptionSucceeded(channel, members):
            PusherFrame.subscriptionSucceeded(channel: channel, members: members)
        case let .memberAdded(channel, member):
            PusherFrame.memberAdded(channel: channel, member: member)
        case let .memberRemoved(channel, userID):
            PusherFrame.memberRemoved(channel: channel, userID: userID)
        }
    }
}
