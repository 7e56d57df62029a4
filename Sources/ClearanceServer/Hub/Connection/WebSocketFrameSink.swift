import Clearance
import CoreMetrics
import Logging
import NIOCore
import NIOWebSocket

/// A connection's WebSocket as a ``ConnectionSink``: each delivery becomes a text frame written
/// and flushed on the connection's channel, in the order of the calls, with no task in between.
/// A shared frame (``EncodedFrame``) is written from its one buffer: NIO's encoder writes the
/// header apart and never copies the payload.
///
/// What the client has not read is counted: the bytes handed to the channel's event loop and not
/// yet written into the channel (here), and, while the channel is not writable (past its
/// high-water mark), the bytes it holds because the socket would not take them (NIO's own count,
/// read after each write and whenever the channel's writability changes). A connection past
/// ``HubConnectionLimits/maxOutboundBytes`` gets no more deliveries: it is closed with 4100 ("over capacity":
/// the client comes back after a backoff), counted (``HubCounter/slowReadersClosed``) and logged
/// (throttled), and disconnected once the close frame is written or after
/// ``HubConnectionLimits/closeTimeout``, whichever comes first. While every connection together has more than
/// ``HubConnectionLimits/maxTotalOutboundBytes`` unsent, the same happens to any that is behind by more than
/// its channel's high-water mark (``laggingBytes``), as its next frame comes.
///
/// After the close frame nothing more is written; ``closeSent`` tells the
/// ``PusherChannelHandler`` that the client's close frame answers ours.
final class WebSocketFrameSink: ConnectionSink {
    /// What each frame costs beyond its payload: its header and NIO's bookkeeping of a pending
    /// write (an estimate, so that a flood of tiny frames is bounded too).
    static let frameOverhead = 128
    /// Unsent bytes beyond which a connection is behind (NIO's default high-water mark): the
    /// ones closed first when the hub's total is past its limit.
    static let laggingBytes = 65_536

    private struct State {
        var closed = false
        var closeSent = false
        /// The connection ended: nothing is counted any more.
        var finished = false
        /// Bytes handed to the event loop, not yet written into the channel.
        var inFlight = 0
        /// What the channel holds unsent while it is not writable (0 while it is).
        var buffered = 0
        var socketID: String?

        var unsent: Int { inFlight + buffered }
    }

    /// Which limit a connection passed.
    private enum Limit {
        case connection, hub
    }

    private enum Verdict {
        case write, drop, overflow(Limit)
    }

    /// What a sink uses of the hub, and nothing else: made once by the hub, shared by every
    /// connection's sink (a reference: a sink costs no more memory than with the hub).
    final class Dependencies: Sendable {
        /// Every connection's unsent bytes, against ``HubConnectionLimits/maxTotalOutboundBytes``.
        let outbound: HubBudget
        /// ``HubConnectionLimits/maxOutboundBytes``: one connection's unsent bytes.
        let maxOutboundBytes: Int
        /// ``HubConnectionLimits/closeTimeout``: how long a close may wait for the client.
        let closeTimeout: Duration
        /// Where slow readers that were cut are counted.
        let counters: HubCounters
        /// Where they are logged (throttled).
        let slowReaderLog: ThrottledLog
        /// Channels to cut when their close handshake runs out.
        let pendingDisconnects: PendingDisconnects
        /// The hub's clock.
        let clock: any HubClock

        init(
            outbound: HubBudget, limits: HubConnectionLimits, counters: HubCounters, slowReaderLog: ThrottledLog,
            pendingDisconnects: PendingDisconnects, clock: any HubClock
        ) {
            self.outbound = outbound
            maxOutboundBytes = limits.maxOutboundBytes
            closeTimeout = .seconds(limits.closeTimeout)
            self.counters = counters
            self.slowReaderLog = slowReaderLog
            self.pendingDisconnects = pendingDisconnects
            self.clock = clock
        }
    }

    private let channel: any Channel
    private let shared: Dependencies
    private var maxOutboundBytes: Int { shared.maxOutboundBytes }
    /// `clearance_messages_sent_total` of the connection's app (nil before admission).
    private let sent: CoreMetrics.Counter?
    private let state = Locked(State())

    /// - Parameter sent: Counts each frame written (the app's handle, made once).
    init(channel: any Channel, shared: Dependencies, sent: CoreMetrics.Counter? = nil) {
        self.channel = channel
        self.shared = shared
        self.sent = sent
    }

    /// Whether the hub sent its close frame.
    var closeSent: Bool { state.withLock { $0.closeSent } }

    /// Bytes handed to the connection and not yet taken by its socket.
    var unsentBytes: Int { state.withLock { $0.unsent } }

    /// The connection's socket id, for logs, once it has one.
    func named(_ socketID: String) {
        state.withLock { $0.socketID = socketID }
    }

    func deliver(_ delivery: ConnectionOutbox.Delivery) {
        let payload: ByteBuffer
        switch delivery {
        case let .encoded(frame): payload = frame.bytes
        case .subscriptionSucceeded: payload = channel.allocator.buffer(string: delivery.text)
        }
        let cost = payload.readableBytes + Self.frameOverhead
        let outbound = shared.outbound
        let verdict = state.withLock { state -> Verdict in
            if state.closed { return .drop }
            if state.unsent + cost > maxOutboundBytes {
                state.closed = true
                return .overflow(.connection)
            }
            if state.buffered > Self.laggingBytes, outbound.value + cost > outbound.limit {
                state.closed = true
                return .overflow(.hub)
            }
            state.inFlight += cost
            return .write
        }
        switch verdict {
        case .write:
            sent?.increment()
            outbound.add(cost)
            let frame = WebSocketFrame(fin: true, opcode: .text, data: payload)
            if channel.eventLoop.inEventLoop {
                write(frame, cost: cost)
            } else {
                channel.eventLoop.execute { self.write(frame, cost: cost) }
            }
        case .drop:
            break
        case let .overflow(limit):
            overflowed(limit)
        }
    }

    /// On the event loop: writes `frame`, then counts what the channel could not send.
    private func write(_ frame: WebSocketFrame, cost: Int) {
        channel.writeAndFlush(frame, promise: nil)
        let buffered = unsentInChannel()
        var overflow = false
        let delta = state.withLock { state -> Int in
            guard !state.finished else { return 0 }
            state.inFlight -= cost
            let delta = buffered - state.buffered - cost
            state.buffered = buffered
            if !state.closed, state.unsent > maxOutboundBytes {
                state.closed = true
                overflow = true
            }
            return delta
        }
        shared.outbound.add(delta)
        if overflow { overflowed(.connection) }
    }

    /// On the event loop: the channel became writable (its client caught up) or stopped being
    /// so; what it holds is counted again.
    func writabilityChanged() {
        let buffered = unsentInChannel()
        let delta = state.withLock { state -> Int in
            guard !state.finished else { return 0 }
            defer { state.buffered = buffered }
            return buffered - state.buffered
        }
        shared.outbound.add(delta)
    }

    /// On the event loop: what the channel holds unsent while it is not writable; 0 while it is.
    private func unsentInChannel() -> Int {
        guard !channel.isWritable else { return 0 }
        return (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
    }

    /// The client left more than the budget unread: no more deliveries (already decided), 4100
    /// after what is queued, and the connection cut once that is written or after the close
    /// timeout (a client that reads nothing never takes it).
    private func overflowed(_ limit: Limit) {
        shared.counters.increment(.slowReadersClosed)
        let socketID = state.withLock { $0.socketID }
        shared.slowReaderLog.record([
            "socket_id": "\(socketID ?? "")",
            "limit": limit == .connection ? "maxOutboundBytes \(maxOutboundBytes)" : "maxTotalOutboundBytes \(shared.outbound.limit)",
        ])
        disconnect(after: shared.closeTimeout)
        let error = PusherFrame.error(HubCloseCode.overCapacity)
        let channel = channel
        if channel.eventLoop.inEventLoop {
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: error)), promise: nil)
        } else {
            channel.eventLoop.execute {
                channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: error)), promise: nil)
            }
        }
        close(.overCapacity, thenDisconnect: true)
    }

    func close(_ code: HubCloseCode) {
        close(code, thenDisconnect: false)
    }

    func close(_ code: HubCloseCode, reason: String) {
        close(code: WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: reason, thenDisconnect: false)
    }

    private func close(_ code: HubCloseCode, thenDisconnect: Bool) {
        close(code: WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: code.message, thenDisconnect: thenDisconnect)
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

    /// Closes the channel after `delay` on the hub's clock unless it closed before (a refused
    /// client, or a slow reader, that does not answer the close frame).
    func disconnect(after delay: Duration) {
        shared.pendingDisconnects.schedule(channel, at: shared.clock.now + delay)
    }

    /// The connection ended: nothing more is sent, and what it had unsent no longer counts.
    func finish() {
        let delta = state.withLock { state -> Int in
            state.closed = true
            guard !state.finished else { return 0 }
            state.finished = true
            defer {
                state.inFlight = 0
                state.buffered = 0
            }
            return -state.unsent
        }
        shared.outbound.add(delta)
    }
}
