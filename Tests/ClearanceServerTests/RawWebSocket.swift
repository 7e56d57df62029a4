import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberately small RFC 6455 client over a blocking POSIX socket, for tests.
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

    private let fd: Int32
    private let sendLock = NSLock()
    /// Set once a close frame went out (guarded by `sendLock`).
    private var closeSent = false
    /// Bytes read past what has been parsed; touched only by the reading thread after the handshake.
    private var buffer: [UInt8] = []

    /// Connects to `host:port`, sends the upgrade request for `pathAndQuery`, and checks the 101.
    init(host: String, port: Int, pathAndQuery: String) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect() failed: \(errno)")
        }
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request = "GET \(pathAndQuery) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try sendAll(Array(request.utf8))
        // Read the response head; anything after it already belongs to the WebSocket stream.
        while true {
            if let end = Self.headEnd(in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    close(fd)
                    throw Failure(description: "upgrade refused: \(head.prefix(80))")
                }
                return
            }
            guard try readMore() else {
                close(fd)
                throw Failure(description: "connection closed during the handshake")
            }
        }
    }

    deinit {
        close(fd)
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
        frame.append(contentsOf: payload.enumerated().map { $0.element ^ mask[$0.offset % 4] })
        try sendAll(frame)
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
                guard try readMore() else { return false }
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

    /// Stops both directions; a blocked ``readFrame()`` returns `nil`.
    func shutdownSocket() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func sendAll(_ bytes: [UInt8]) throws {
        sendLock.lock()
        defer { sendLock.unlock() }
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { socketSend(fd, $0) }
            guard result > 0 else { throw Failure(description: "send() failed: \(errno)") }
            sent += result
        }
    }

    private func readMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { socketReceive(fd, $0) }
        if count <= 0 { return false }
        buffer.append(contentsOf: chunk[..<count])
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

private func socketSend(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if canImport(Glibc)
    send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes.baseAddress, bytes.count, 0)
    #endif
}

private func socketReceive(_ fd: Int32, _ bytes: UnsafeMutableRawBufferPointer) -> Int {
    recv(fd, bytes.baseAddress, bytes.count, 0)
}
