import NIOCore
import NIOHTTPTypes

/// The metrics port's whole-request deadline, the hub's own ``RequestDeadline`` placed where the
/// port's server lets a handler in (after the HTTP decoder): each request must have arrived whole
/// within ``HubMetricsService/requestTimeout`` of the connection's accept, or of the previous
/// request's end. Hummingbird's idle timeout restarts with every byte, so without it a client
/// trickling a byte a second could hold one of the port's few connection slots for ever (and a
/// handful of them, every slot: no scrape, no readiness probe). One per connection, on its event
/// loop.
final class MetricsRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let deadline: RequestDeadline

    init(timeout: Duration) {
        deadline = RequestDeadline(timeout: timeout) { _ in }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline.requestBegan(on: context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            // This request is whole; the next one's time starts now.
            deadline.requestEnded()
            deadline.requestBegan(on: context.channel)
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.stop()
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension MetricsRequestDeadline: Sendable {}
