import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The whole-request deadline of one HTTP connection (``HubHTTPAPILimits/httpRequestTimeout``): from a
/// request's first byte to its end, however slowly it is trickled (an idle timer restarts with
/// every byte; this one does not). Past it the connection is closed.
///
/// Two handlers share it, on the connection's event loop: ``FirstByte`` at the front of the
/// pipeline arms it when bytes arrive while no request is being read, ``RequestEnd`` after the
/// HTTP codec disarms it at the request's end. A connection gets it once it is known to stay
/// HTTP (its first request head is read, and is no WebSocket upgrade), armed at once for that
/// first request, counting from the moment the connection was accepted.
final class RequestDeadline {
    private let timeout: TimeAmount
    private let expired: (any Channel) -> Void
    private var scheduled: Scheduled<Void>?
    private var stopped = false

    /// - Parameters:
    ///   - timeout: The time a request has to arrive whole.
    ///   - expired: Called on the event loop when a request ran out of time, before the
    ///     connection is closed (to count it).
    init(timeout: Duration, expired: @escaping (any Channel) -> Void) {
        self.timeout = TimeAmount(timeout)
        self.expired = expired
    }

    /// Arms the deadline unless a request is being read already: it expires `timeout` after
    /// `start` (default: now).
    func requestBegan(on channel: any Channel, at start: NIODeadline = .now()) {
        guard !stopped, scheduled == nil else { return }
        scheduled = channel.eventLoop.assumeIsolated().scheduleTask(deadline: start + timeout) { [self] in
            scheduled = nil
            guard !stopped else { return }
            expired(channel)
            channel.close(promise: nil)
        }
    }

    /// The request arrived whole.
    func requestEnded() {
        scheduled?.cancel()
        scheduled = nil
    }

    /// The connection is no longer HTTP (a WebSocket now), or is closing: no deadline any more.
    func stop() {
        stopped = true
        requestEnded()
    }

    /// The handler that goes first in the pipeline (it sees the raw bytes).
    func makeFirstByteHandler() -> FirstByte { FirstByte(deadline: self) }

    /// The handler that goes after the HTTP codec (it sees each request's end).
    func makeRequestEndHandler() -> RequestEnd { RequestEnd(deadline: self) }

    /// Arms the deadline at a request's first bytes.
    final class FirstByte: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        private let deadline: RequestDeadline

        fileprivate init(deadline: RequestDeadline) {
            self.deadline = deadline
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            deadline.requestBegan(on: context.channel)
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            deadline.stop()
            context.fireChannelInactive()
        }
    }

    /// Disarms the deadline at a request's end.
    final class RequestEnd: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        private let deadline: RequestDeadline

        fileprivate init(deadline: RequestDeadline) {
            self.deadline = deadline
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .end = unwrapInboundIn(data) { deadline.requestEnded() }
            context.fireChannelRead(data)
        }
    }
}

@available(*, unavailable)
extension RequestDeadline: Sendable {}
