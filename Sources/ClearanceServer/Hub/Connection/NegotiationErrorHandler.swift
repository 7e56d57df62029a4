import NIOCore
import NIOHTTP1

/// While the first request of a connection is read (before it is known to be a WebSocket upgrade
/// or plain HTTP, so before Hummingbird, which answers a malformed request of its own, is on the
/// pipeline), a request that does not parse is answered `400 Bad Request` with
/// `Connection: close`, and the connection is closed at once, instead of holding its socket until
/// ``HubHTTPAPILimits/httpIdleTimeout``. ``HubChildChannel`` removes it once the first request is
/// negotiated. Each is counted (``HubCounter/malformedRequestsRefused``).
final class NegotiationErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    /// Its name in the pipeline.
    static let name = "clearance.negotiation-errors"

    private var answered = false
    private let refused: @Sendable () -> Void

    /// `refused` is called for each request answered 400 (the hub counts it).
    init(refused: @escaping @Sendable () -> Void) {
        self.refused = refused
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, !answered else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        refused()
        let head = HTTPResponseHead(
            version: .http1_1, status: .badRequest, headers: HTTPHeaders([("Connection", "close"), ("Content-Length", "0")]))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
