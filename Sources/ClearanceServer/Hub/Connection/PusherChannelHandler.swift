import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// The WebSocket side of one hub connection, on the channel's event loop: assembles the client's
/// messages from frames (at most `maxMessageBytes`, else close 1009), answers pings, keeps the
/// close handshake, and hands each message to the ``PusherConnection``. A refused connection
/// (bad path, unknown or disabled app) gets `pusher:error` and its close code at once.
final class PusherChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    enum Admission {
        case connection(PusherConnection)
        case refused(HubCloseCode, WebSocketFrameSink, PusherConnection.Dependencies)
    }

    private let admission: Admission
    private let maxMessageBytes: Int
    /// The message being assembled from fragments, and whether it is text.
    private var pending: (buffer: ByteBuffer, isText: Bool)?

    init(admission: Admission, maxMessageBytes: Int) {
        self.admission = admission
        self.maxMessageBytes = maxMessageBytes
    }

    private var sink: WebSocketFrameSink {
        switch admission {
        case let .connection(connection): connection.sink
        case let .refused(_, sink, _): sink
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        switch admission {
        case let .connection(connection): connection.opened()
        case let .refused(code, sink, hub): PusherConnection.refuse(sink, code: code, hub: hub, appID: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch admission {
        case let .connection(connection): connection.ended()
        case let .refused(_, sink, _): sink.finish()
        }
        context.fireChannelInactive()
    }

    /// The client closed its side of the socket without a close frame (a killed process, a
    /// dropped network): nothing more can come. The server's channels allow half-closure (for
    /// HTTP), so NIO would keep the socket open; it is closed now, so that its descriptor goes
    /// back to the hub's budget at once rather than when the ping timers find it minutes later.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            pending = nil
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        sink.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            receivedClose(frame, context: context)
        case .ping:
            guard !sink.closeSent else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .text, .binary:
            guard pending == nil else { return fail(.protocolError, context: context) }
            pending = (frame.unmaskedData, frame.opcode == .text)
            completeMessage(final: frame.fin, context: context)
        case .continuation:
            guard var assembling = pending else { return fail(.protocolError, context: context) }
            var fragment = frame.unmaskedData
            assembling.buffer.writeBuffer(&fragment)
            pending = assembling
            completeMessage(final: frame.fin, context: context)
        default:
            fail(.protocolError, context: context)
        }
    }

    private func completeMessage(final: Bool, context: ChannelHandlerContext) {
        guard let (buffer, isText) = pending else { return }
        guard buffer.readableBytes <= maxMessageBytes else { return fail(.messageTooLarge, context: context) }
        guard final else { return }
        pending = nil
        guard case let .connection(connection) = admission, !sink.closeSent else { return }
        connection.received(isText ? .text(String(buffer: buffer)) : .binary(buffer))
    }

    /// The client's close frame: it answers ours (the connection is over), or it starts the
    /// close handshake (answered with the same code).
    private func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        var data = frame.unmaskedData
        sink.close(code: data.readWebSocketErrorCode() ?? .normalClosure, thenDisconnect: true)
    }

    /// A protocol violation or an oversized message: close with `code`, then disconnect.
    private func fail(_ code: WebSocketErrorCode, context: ChannelHandlerContext) {
        pending = nil
        sink.close(code: code, thenDisconnect: true)
    }
}
