import Clearance
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// A connection's WebSocket as a ``ConnectionSink``: each delivery becomes a text frame written
/// and flushed on the connection's channel at once, in the order of the calls, without a writer
/// task per connection (a task keeps the memory of its deepest await for as long as it lives).
///
/// The channel buffers what the client has not read yet; once it stops being writable (its
/// high-water mark), each further delivery counts, and beyond `maxQueuedFrames` of them the
/// client is too slow a reader and the connection is dropped. The close frame goes through the
/// WebSocket library's writer, so that it knows the connection is closing.
final class WebSocketFrameSink: ConnectionSink {
    private struct State {
        var closed = false
        var unwritableDeliveries = 0
    }

    private enum Verdict {
        case write, drop, overflow
    }

    private let channel: any Channel
    private let outbound: WebSocketOutboundWriter
    private let maxQueuedFrames: Int
    private let logger: Logger
    private let state = Locked(State())

    init(channel: any Channel, outbound: WebSocketOutboundWriter, maxQueuedFrames: Int, logger: Logger) {
        self.channel = channel
        self.outbound = outbound
        self.maxQueuedFrames = maxQueuedFrames
        self.logger = logger
    }

    func deliver(_ delivery: ConnectionOutbox.Delivery) {
        let verdict = state.withLock { state -> Verdict in
            if state.closed { return .drop }
            if channel.isWritable {
                state.unwritableDeliveries = 0
            } else {
                state.unwritableDeliveries += 1
                if state.unwritableDeliveries > maxQueuedFrames {
                    state.closed = true
                    return .overflow
                }
            }
            return .write
        }
        switch verdict {
        case .write:
            let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: delivery.text))
            channel.writeAndFlush(frame, promise: nil)
        case .drop:
            break
        case .overflow:
            // The client does not read: a close frame would queue behind everything else.
            logger.warning("hub.connection.slowReader", metadata: ["queued": "\(maxQueuedFrames)"])
            channel.close(promise: nil)
        }
    }

    func close(_ code: HubCloseCode) {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        let outbound = outbound
        // The library's close is async; the frames written before it are ahead of it on the
        // channel's event loop.
        Task {
            try? await outbound.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: code.message)
        }
    }

    func finish() {
        state.withLock { $0.closed = true }
    }
}
