import Clearance
import ClearanceTestSupport
import Foundation

/// A deliberately small RFC 6455 client over a blocking ``RawSocket``, for tests.
///
/// Why not swift-websocket's `WSClient`: it drops frames that arrive in the same TCP read as
/// the `101 Switching Protocols` response (the hub's refusals send `pusher:error` at once, and
/// under load `connection_established` can arrive that way too), which made tests flaky.
/// Reading the socket ourselves keeps every byte after the handshake.
final class RawWebSocket: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    enum Opcode: UInt8 {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
    }

    struct Frame {
        let fin: Bool
        let opcode: UInt8
        let payload: [UInt8]
    }

    private let socket: RawSocket
    private let sendLock = NSLock()
    /// Set once a close frame went out (guarded by `sendLock`).
    private var closeSent = false
    /// Bytes read past what has been parsed; touched only by the reading thread after the handshake.
    private var buffer: [UInt8] = []

    /// Connects to `host:port`, sends the upgrade request for `pathAndQuery` (with `headers`,
    /// such as a browser's `Origin`), and checks the 101.
    init(host: String, port: Int, pathAndQuery: String, headers: [String: String] = [:]) throws {
        socket = try RawSocket(host: host, port: port)
        try sendAll(Array(Self.upgradeRequest(host: host, port: port, pathAndQuery: pathAndQuery, headers: headers).utf8))
        // Read the response head; anything after it already belongs to the WebSocket stream.
        while true {
            if let end = Self.headEnd(in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    throw Failure(description: "upgrade refused: \(head.prefix(80))")
                }
                return
            }
            guard readMore() else {
                throw Failure(description: "connection closed during the handshake")
            }
        }
    }

    /// The HTTP/1.1 upgrade request a client sends for `pathAndQuery`, with `headers`.
    static func upgradeRequest(host: String, port: Int, pathAndQuery: String, headers: [String: String] = [:]) -> String {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        return "GET \(pathAndQuery) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
            + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n"
    }

    /// Sends one frame (masked, as clients must).
    func send(opcode: Opcode, payload: [UInt8], fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        let count = payload.count
        if count < 126 {
            frame.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(contentsOf: [UInt8(count >> 8), UInt8(count & 0xFF)])
        } else {
            frame.append(0x80 | 127)
            frame.append(contentsOf: (0..<8).reversed().map { UInt8((count >> ($0 * 8)) & 0xFF) })
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame.append(contentsOf: mask)
        frame.append(contentsOf: Self.masked(payload, with: mask))
        try sendAll(frame)
    }

    /// `payload` masked with the 4 bytes of `mask`. Through raw buffers: in a debug build the
    /// generic `enumerated().map` cost a generic metadata lookup per byte, and the tests that send
    /// thousands of 10 KB events spent more CPU masking than the hub spent reading them.
    static func masked(_ payload: [UInt8], with mask: [UInt8]) -> [UInt8] {
        var bytes = payload
        bytes.withUnsafeMutableBufferPointer { buffer in
            mask.withUnsafeBufferPointer { mask in
                var index = 0
                while index < buffer.count {
                    buffer[index] ^= mask[index & 3]
                    index += 1
                }
            }
        }
        return bytes
    }

    /// Writes `bytes` as they are (a frame header that lies, say).
    func sendRaw(_ bytes: [UInt8]) throws {
        try sendAll(bytes)
    }

    /// Sends a close frame with `code`, unless one was already sent.
    func sendClose(code: UInt16) throws {
        sendLock.lock()
        let alreadySent = closeSent
        closeSent = true
        sendLock.unlock()
        guard !alreadySent else { return }
        try send(opcode: .close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// The next frame, or `nil` when the connection has ended. Blocks.
    func readFrame() throws -> Frame? {
        func need(_ count: Int) throws -> Bool {
            while buffer.count < count {
                guard readMore() else { return false }
            }
            return true
        }
        guard try need(2) else { return nil }
        let fin = buffer[0] & 0x80 != 0
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard try need(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard try need(10) else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        guard try need(offset + length) else { return nil }
        let payload = Array(buffer[offset..<(offset + length)])
        buffer.removeFirst(offset + length)
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    /// The frames that arrive until `count` have, a close frame has, or the connection ends.
    func frames(upTo count: Int) async -> [Frame] {
        await reading { socket in
            var frames: [Frame] = []
            while frames.count < count, let frame = try? socket.readFrame() {
                frames.append(frame)
                if frame.opcode == Opcode.close.rawValue { break }
            }
            return frames
        }
    }

    /// Whether the connection ends (the socket reaches its end; frames before it are read and
    /// dropped) within `timeout` (stretched by ``TestTiming/scale``, through ``eventually``). When it
    /// does not, the socket is shut down, so that no thread stays blocked on it and the test fails
    /// instead of hanging.
    func ends(within timeout: Duration) async -> Bool {
        let ended = Locked(false)
        async let reader: Void = reading { socket in
            while (try? socket.readFrame()) ?? nil != nil {}
            ended.withLock { $0 = true }
        }
        let endedInTime = (try? await eventually("the socket's end", timeout: timeout) { ended.withLock { $0 } }) != nil
        if !endedInTime { shutdownSocket() }
        await reader
        return endedInTime
    }

    /// What `read` (which blocks on the socket) returns, run on a thread of its own: a test's
    /// task must never block on a socket (the hub's own tasks share the few threads of the
    /// cooperative pool).
    func reading<T: Sendable>(_ read: @escaping @Sendable (RawWebSocket) -> T) async -> T {
        await onOwnThread { read(self) }
    }

    /// Stops both directions; a blocked ``readFrame()`` returns `nil`.
    func shutdownSocket() {
        socket.shutdownSocket()
    }

    private func sendAll(_ bytes: [UInt8]) throws {
        sendLock.lock()
        defer { sendLock.unlock() }
        try socket.sendAll(bytes)
    }

    private func readMore() -> Bool {
        guard let chunk = socket.receive() else { return false }
        buffer.append(contentsOf: chunk)
        return true
    }

    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
