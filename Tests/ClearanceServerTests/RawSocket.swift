import ClearanceTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP connection to a loopback server, for tests that write exactly the bytes a
/// hostile or broken client would (half a request, then silence) and watch what the server does.
/// ``RawWebSocket`` speaks WebSocket over one.
final class RawSocket: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let fd: Int32
    /// When connecting began: a server's idle timer for this connection starts no earlier.
    let connectedAt: ContinuousClock.Instant

    /// Connects to `host:port` (an IPv4 address), from the address `source` when given (any
    /// 127.x.y.z on Linux: another client address on loopback).
    init(host: String, port: Int, from source: String? = nil) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        connectedAt = .now
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw Failure(description: "bind() failed: \(errno)") }
        }
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
            // Not closed here: every stored property is set, so deinit runs and closes it (a
            // second close would hit whatever descriptor the process opened meanwhile).
            throw Failure(description: "connect() failed: \(errno)")
        }
    }

    deinit {
        close(fd)
    }

    /// Writes every byte. Blocks.
    func sendAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { socketSend(fd, $0) }
            guard result > 0 else { throw Failure(description: "send() failed: \(errno)") }
            sent += result
        }
    }

    /// The next bytes received, or `nil` once the peer has closed (or reset) the connection.
    /// Blocks.
    func receive() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(chunk[..<count]) : nil
    }

    /// Stops both directions; a blocked ``receive()`` returns `nil`.
    func shutdownSocket() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Everything the peer sends until it closes the connection, and how long that took (since
    /// this wait began, and since the connection was made); `nil`
    /// when it is still open after `timeout` (stretched by `TestTiming.scale`). Reads on a thread
    /// of its own, so that waiting never blocks the test's (or the server's) tasks.
    func untilClosed(timeout: Duration) async -> (bytes: [UInt8], after: Duration, sinceConnected: Duration)? {
        let timeout = TestTiming.scaled(timeout)
        let start = ContinuousClock.now
        let timer = Task {
            // sleep: the deadline of a read (raced against the bytes), not a wait.
            try await Task.sleep(for: timeout)
            self.shutdownSocket()
        }
        let bytes = await onOwnThread {
            var bytes: [UInt8] = []
            while let chunk = self.receive() { bytes += chunk }
            return bytes
        }
        timer.cancel()
        let elapsed = ContinuousClock.now - start
        return elapsed < timeout ? (bytes, elapsed, ContinuousClock.now - connectedAt) : nil
    }

    /// The first HTTP response the peer sends, head and body (by its `Content-Length`), as
    /// text; nil when none arrives whole within `timeout` (stretched by `TestTiming.scale`).
    /// Reads on a thread of its own.
    func httpResponse(timeout: Duration) async -> String? {
        let timeout = TestTiming.scaled(timeout)
        let timer = Task {
            // sleep: the deadline of a read (raced against the bytes), not a wait.
            try await Task.sleep(for: timeout)
            self.shutdownSocket()
        }
        defer { timer.cancel() }
        return await onOwnThread {
            var bytes: [UInt8] = []
            while let chunk = self.receive() {
                bytes += chunk
                let text = String(decoding: bytes, as: UTF8.self)
                guard let end = text.range(of: "\r\n\r\n") else { continue }
                let length = text[..<end.lowerBound].split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text[end.upperBound...].utf8.count >= length { return text }
            }
            return nil
        }
    }
}

private func socketSend(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if canImport(Glibc)
    send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes.baseAddress, bytes.count, 0)
    #endif
}
