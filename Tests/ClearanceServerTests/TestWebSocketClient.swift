import Foundation
import ClearanceTestSupport

/// A minimal WebSocket client for the hub tests: records every text frame, sends what it is
/// told, and reports the close code the hub sent. Built on ``RawWebSocket`` (a reading thread
/// per client) so that no frame is lost.
final class TestWebSocketClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private enum Event: Sendable {
        case text(String)
        case ended(closeCode: UInt16?)
    }

    private let inbox = FrameInbox()
    private let socket: RawWebSocket
    private let consumer: Task<UInt16?, Never>

    /// Connects to `url` (ws://127.0.0.1:PORT/…) and starts reading; frames arrive in ``next(timeout:)``.
    init(url: URL) throws {
        guard let host = url.host, let port = url.port else { throw Failure(description: "bad URL \(url)") }
        let pathAndQuery = url.path + (url.query.map { "?" + $0 } ?? "")
        let socket = try RawWebSocket(host: host, port: port, pathAndQuery: pathAndQuery.isEmpty ? "/" : pathAndQuery)
        self.socket = socket
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let reader = Thread {
            var closeCode: UInt16?
            var fragments: [UInt8] = []
            while let frame = try? socket.readFrame() {
                switch frame.opcode {
                case RawWebSocket.Opcode.text.rawValue, RawWebSocket.Opcode.continuation.rawValue:
                    fragments.append(contentsOf: frame.payload)
                    if frame.fin {
                        continuation.yield(.text(String(decoding: fragments, as: UTF8.self)))
                        fragments = []
                    }
                case RawWebSocket.Opcode.ping.rawValue:
                    try? socket.send(opcode: .pong, payload: frame.payload)
                case RawWebSocket.Opcode.close.rawValue:
                    if closeCode == nil, frame.payload.count >= 2 {
                        closeCode = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                    }
                    try? socket.sendClose(code: closeCode ?? 1000)
                default:
                    break
                }
            }
            continuation.yield(.ended(closeCode: closeCode))
            continuation.finish()
        }
        reader.start()
        let inbox = inbox
        consumer = Task {
            var code: UInt16?
            for await event in events {
                switch event {
                case let .text(text): await inbox.push(text)
                case let .ended(closeCode): code = closeCode
                }
            }
            await inbox.finish()
            return code
        }
    }

    func send(_ text: String) {
        try? socket.send(opcode: .text, payload: Array(text.utf8))
    }

    func sendBinary(_ bytes: [UInt8]) {
        try? socket.send(opcode: .binary, payload: bytes)
    }

    /// Sends a normal close frame; the hub answers and the connection ends.
    func close() {
        try? socket.sendClose(code: 1000)
    }

    /// The next frame, or `nil` when none arrives within `timeout` (stretched by
    /// `TestTiming.scale`) or the connection ended.
    func next(timeout: Duration = .seconds(15)) async -> ReceivedFrame? {
        await frame(before: .now + TestTiming.scaled(timeout))
    }

    /// The next frame, or `nil` when none arrives before `deadline` or the connection ended.
    private func frame(before deadline: ContinuousClock.Instant) async -> ReceivedFrame? {
        await inbox.next(timeout: deadline - .now).map(ReceivedFrame.init(text:))
    }

    /// Reads frames until one with `event` (and `channel`, when given) arrives; `timeout` is
    /// stretched by `TestTiming.scale`.
    func next(
        event: String,
        channel: String? = nil,
        timeout: Duration = .seconds(15),
        sourceLocation: String = #function
    ) async throws -> ReceivedFrame {
        let timeout = TestTiming.scaled(timeout)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frame = await frame(before: deadline) else { break }
            if frame.event == event, channel == nil || frame.channel == channel { return frame }
        }
        throw Failure(description: "no \(event) frame\(channel.map { " on \($0)" } ?? "") within \(timeout) (\(sourceLocation))")
    }

    /// A "nothing happens" check with a positive control instead of a wait: sends `pusher:ping`
    /// and returns the first frame other than the `ignoring` events that arrives before the
    /// hub's `pusher:pong`, or `nil` when the pong comes first. The hub handles one connection's
    /// frames in order, so whatever an action finished before this call put on the connection
    /// arrives before the pong. A connection that ends before the pong gives a frame whose
    /// event is `test:connection-ended`; no pong within 15 s (stretched by `TestTiming.scale`)
    /// throws.
    func unexpectedFrameBeforePong(ignoring: Set<String> = []) async throws -> ReceivedFrame? {
        send(#"{"event":"pusher:ping","data":{}}"#)
        let timeout = TestTiming.scaled(.seconds(15))
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frame = await frame(before: deadline) else {
                guard await inbox.isDrained else { break }
                return ReceivedFrame(text: #"{"event":"test:connection-ended"}"#)
            }
            if frame.event == "pusher:pong" { return nil }
            if let event = frame.event, ignoring.contains(event) { continue }
            return frame
        }
        throw Failure(description: "no pusher:pong within \(timeout)")
    }

    /// The close code the hub sent (`nil` if it closed without one), once the connection has ended
    /// (`timeout` stretched by `TestTiming.scale`).
    func closeCode(timeout: Duration = .seconds(10)) async throws -> UInt16? {
        let timeout = TestTiming.scaled(timeout)
        let consumer = consumer
        return try await withThrowingTaskGroup(of: UInt16??.self) { group in
            group.addTask { .some(await consumer.value) }
            group.addTask {
                // sleep: the deadline of a wait (raced against the answer), not a wait.
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            guard let result = first else { throw Failure(description: "the connection did not end within \(timeout)") }
            return result
        }
    }

    /// Ends the connection from the client side and waits (briefly) for it to finish.
    func disconnect() async {
        close()
        do {
            _ = try await closeCode(timeout: .seconds(10))
        } catch {
            socket.shutdownSocket()
        }
    }
}
