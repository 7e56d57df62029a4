import NIOCore
import NIOHTTPTypes

/// The metrics port's whole-request deadline: each request must have arrived whole within
/// ``HubMetricsService/requestTimeout`` of the connection's accept, or of the previous request's
/// end. Hummingbird's idle timeout restarts with every byte, so without it a client trickling a
/// byte a second could hold one of the port's few connection slots for ever (and a handful of
/// them, every slot: no scrape, no readiness probe). Sits after the HTTP decoder, one per
/// connection, on its event loop.
final class MetricsRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { arm(context) }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        context.fireChannelInactive()
    }

    /// The next request has `timeout` from now.
    private func arm(_ context: ChannelHandlerContext) {
        scheduled?.cancel()
        let channel = context.channel
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension MetricsRequestDeadline: Sendable {}
