import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// One client connection: admits it, then runs three child tasks and a main loop.
///
/// - the reader turns WebSocket messages into ``ConnectionInput``s;
/// - the ticker adds a `.tick` at the timers' pace;
/// - the writer drains the ``ConnectionOutbox`` into the WebSocket, so that replies and
///   published events share one ordered queue;
/// - the main loop feeds every input, one at a time, to a ``ConnectionSession``.
///
/// The connection ends when the client's side ends (its close frame, a disconnect, or the hub
/// dropping a client that ignored the hub's close frame). Nothing is cancelled before that,
/// except the ticker and a writer that can no longer write.
struct PusherConnection: Sendable {
    /// Client messages read ahead of the main loop; the reader waits for the loop beyond this,
    /// so a client that floods the hub is slowed down by TCP instead of filling memory.
    static let readAhead = 16

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
        let (inputs, inputContinuation) = AsyncStream<ConnectionInput>.makeStream()
        let admission = await hub.registry.admit(
            appID: app.id,
            appLimit: app.configuration.maxConnections,
            hubLimit: hub.limits.maxConnections,
            control: inputContinuation
        )
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
        let outbox = ConnectionOutbox(continuation: itemContinuation) {
            inputContinuation.yield(.outboxOverflow)
        }
        await hub.adapter.addConnection(socketID: socketID, appID: app.id, outbox: outbox)
        outbox.deliver(.frame(PusherFrame.connectionEstablished(socketID: socketID, activityTimeout: hub.limits.activityTimeout)))

        var session = ConnectionSession(
            hub: hub,
            app: app,
            socketID: socketID,
            outbox: outbox,
            channel: channel,
            logger: logger
        )
        let tickInterval = session.tickInterval
        let maxMessageBytes = hub.limits.maxMessageBytes
        let (credits, creditContinuation) = AsyncStream<Void>.makeStream()
        for _ in 0..<Self.readAhead { creditContinuation.yield() }

        let readError: (any Error)? = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                await Self.write(items, to: outbound)
                return nil
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tickInterval)
                    inputContinuation.yield(.tick)
                }
                return nil
            }
            group.addTask {
                await Self.read(inbound, maxMessageBytes: maxMessageBytes, credits: credits, into: inputContinuation)
            }

            for await input in inputs {
                guard await session.handle(input) else { break }
                switch input {
                case .text, .binary: creditContinuation.yield()
                default: break
                }
            }

            await hub.adapter.removeConnection(socketID: socketID, appID: app.id)
            await hub.registry.remove(socketID: socketID)
            outbox.finish()
            inputContinuation.finish()
            creditContinuation.finish()
            group.cancelAll()
            var firstError: (any Error)?
            for await error in group where firstError == nil {
                firstError = error
            }
            return firstError
        }
        logger.info("hub.connection.closed")
        // A message over the size limit ends the read with the library's own error; rethrowing
        // it lets the WebSocket layer close with 1009 rather than 1000.
        if let readError { throw readError }
    }

    /// Reads messages into `inputs`, each one only with a credit from the main loop.
    private static func read(
        _ inbound: WebSocketInboundStream,
        maxMessageBytes: Int,
        credits: AsyncStream<Void>,
        into inputs: AsyncStream<ConnectionInput>.Continuation
    ) async -> (any Error)? {
        var iterator = inbound.messages(maxSize: maxMessageBytes).makeAsyncIterator()
        var credit = credits.makeAsyncIterator()
        do {
            while await credit.next() != nil, let message = try await iterator.next() {
                switch message {
                case let .text(text): inputs.yield(.text(text))
                case .binary: inputs.yield(.binary)
                }
            }
            inputs.yield(.inboundEnded)
            return nil
        } catch {
            inputs.yield(.inboundEnded)
            return error
        }
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
