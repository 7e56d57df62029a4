import Foundation
import Logging
import NIOWebSocket
import WSClient

/// A minimal WebSocket client for the hub tests: records every text frame, sends what it is
/// told, and reports the close code the hub sent.
final class TestWebSocketClient: Sendable {
    enum Command: Sendable {
        case text(String)
        case binary([UInt8])
        case close
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let inbox = FrameInbox()
    private let commands: AsyncStream<Command>.Continuation
    private let run: Task<UInt16?, any Error>

    /// Connects to `url` and returns at once; frames arrive in ``next(timeout:)``.
    init(url: URL) {
        let (stream, continuation) = AsyncStream<Command>.makeStream()
        commands = continuation
        let inbox = inbox
        let logger = Logger(label: "test.ws") { _ in SwiftLogNoOpLogHandler() }
        run = Task {
            let closeFrame = try await WebSocketClient.connect(
                url: url.absoluteString,
                configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 20, closeTimeout: .seconds(5)),
                logger: logger
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                if case let .text(text) = message { await inbox.push(text) }
                            }
                        } catch {}
                        await inbox.finish()
                    }
                    group.addTask {
                        for await command in stream {
                            switch command {
                            case let .text(text):
                                try await outbound.write(.text(text))
                            case let .binary(bytes):
                                try await outbound.write(.binary(.init(bytes: bytes)))
                            case .close:
                                try await outbound.close(.normalClosure, reason: nil)
                            }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
            await inbox.finish()
            return closeFrame.map { UInt16(webSocketErrorCode: $0.closeCode) }
        }
    }

    func send(_ text: String) {
        commands.yield(.text(text))
    }

    func sendBinary(_ bytes: [UInt8]) {
        commands.yield(.binary(bytes))
    }

    /// Sends a close frame; the hub answers and the connection ends.
    func close() {
        commands.yield(.close)
    }

    /// The next frame, or `nil` when none arrives within `timeout` or the connection ended.
    func next(timeout: Duration = .seconds(5)) async -> ReceivedFrame? {
        await inbox.next(timeout: timeout).map(ReceivedFrame.init(text:))
    }

    /// Reads frames until one with `event` (and `channel`, when given) arrives.
    func next(
        event: String,
        channel: String? = nil,
        timeout: Duration = .seconds(5),
        sourceLocation: String = #function
    ) async throws -> ReceivedFrame {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frame = await next(timeout: deadline - .now) else { break }
            if frame.event == event, channel == nil || frame.channel == channel { return frame }
        }
        throw Failure(description: "no \(event) frame\(channel.map { " on \($0)" } ?? "") within \(timeout) (\(sourceLocation))")
    }

    /// Asserts nothing but the ignored events arrives within `timeout`; returns the unexpected frame if one does.
    func unexpectedFrame(within timeout: Duration, ignoring: Set<String> = ["pusher:pong"]) async -> ReceivedFrame? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let frame = await next(timeout: deadline - .now) else { return nil }
            if let event = frame.event, ignoring.contains(event) { continue }
            return frame
        }
        return nil
    }

    /// The close code the hub sent, once the connection has ended (within `timeout`).
    func closeCode(timeout: Duration = .seconds(10)) async throws -> UInt16? {
        try await withThrowingTaskGroup(of: UInt16??.self) { group in
            group.addTask { .some(try await self.run.value) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            guard let result = first else { throw Failure(description: "the connection did not end within \(timeout)") }
            return result
        }
    }

    /// Ends the connection from the client side and waits for it to finish.
    func disconnect() async {
        close()
        commands.finish()
        _ = try? await closeCode(timeout: .seconds(5))
    }
}
