import Clearance
import Logging
import NIOCore
import NIOWebSocket

/// A connection's WebSocket as a ``ConnectionSink``: each delivery becomes a text frame written
/// and flushed on the connection's channel at once, in the order of the calls, with no task in
/// between.
///
/// The channel buffers what the client has not read yet; once it stops being writable (its
/// high-water mark), each further delivery counts, and beyond `maxQueuedFrames` of them the
/// client is too slow a reader and the connection is dropped. After the close frame nothing more
/// is written; ``closeSent`` tells the ``PusherChannelHandler`` that the client's close frame
/// answers ours.
final class WebSocketFrameSink: ConnectionSink {
    private struct State {
        var closed = false
        var closeSent = false
        var unwritableDeliveries = 0
        var socketID: String?
    }

    private enum Verdict {
        case write, drop, overflow
    }

    private let channel: any Channel
    private let maxQueuedFrames: Int
    private let logger: Logger
    private let state = Locked(State())

    init(channel: any Channel, maxQueuedFrames: Int, logger: Logger) {
        self.channel = channel
        self.maxQueuedFrames = maxQueuedFrames
        self.logger = logger
    }

    /// Whether the hub sent its close frame.
    var closeSent: Bool { state.withLock { $0.closeSent } }

    /// The connection's socket id, for logs, once it has one.
    func named(_ socketID: String) {
        state.withLock { $0.socketID = socketID }
    }

    func deliver(_ delivery: ConnectionOutbox.Delivery) {
        let (verdict, socketID) = state.withLock { state -> (Verdict, String?) in
            if state.closed { return (.drop, nil) }
            if channel.isWritable {
                state.unwritableDeliveries = 0
            } else {
                state.unwritableDeliveries += 1
                if state.unwritableDeliveries > maxQueuedFrames {
                    state.closed = true
                    return (.overflow, state.socketID)
                }
            }
            return (.write, nil)
        }
        switch verdict {
        case .write:
            let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: delivery.text))
            channel.writeAndFlush(frame, promise: nil)
        case .drop:
            break
        case .overflow:
            // The client does not read: a close frame would queue behind everything else.
            logger.warning("hub.connection.slowReader", metadata: ["socket_id": "\(socketID ?? "")", "queued": "\(maxQueuedFrames)"])
            channel.close(promise: nil)
        }
    }

    func close(_ code: HubCloseCode) {
        close(code: WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: code.message)
    }

    /// Writes the close frame with `code` (once); nothing is written after it. With
    /// `thenDisconnect`, the channel closes once the frame is written (the client's own close
    /// frame is not waited for).
    func close(code: WebSocketErrorCode, reason: String = "", thenDisconnect: Bool = false) {
        let first = state.withLock { state -> Bool in
            guard !state.closeSent else { return false }
            state.closed = true
            state.closeSent = true
            return true
        }
        guard first else {
            if thenDisconnect { channel.close(promise: nil) }
            return
        }
        var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.write(webSocketErrorCode: code)
        data.writeString(reason)
        let written = channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
        if thenDisconnect {
            let channel = channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Closes the channel after `delay` unless it closed before (a refused client that does not
    /// answer the close frame).
    func disconnect(after delay: Duration) {
        let channel = channel
        channel.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            channel.close(promise: nil)
        }
    }

    func finish() {
        state.withLock { $0.closed = true }
    }
}
