#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket on 127.0.0.1 that lets clients connect (the kernel completes their handshake)
/// and never answers them: a server that hangs once connected. ``hangUpNext(within:)`` takes the
/// next waiting connection and closes it, so its client reads the end of the stream exactly when
/// the test says.
package final class SilentListener: Sendable {
    private let descriptor: Int32
    /// Its port on 127.0.0.1.
    package let port: Int

    /// Listens on a free port of 127.0.0.1.
    package init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SilentListenerError(step: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let error = SilentListenerError(step: "bind", errno: errno)
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Takes the next connection, waiting for one at most `timeout`, and closes it. Returns
    /// whether there was one.
    package func hangUpNext(within timeout: Duration) -> Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&waiting, 1, milliseconds) == 1 else { return false }
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else { return false }
        close(connection)
        return true
    }

    deinit {
        close(descriptor)
    }
}

/// A ``SilentListener`` that could not listen: the call that failed and its `errno`.
package struct SilentListenerError: Error, CustomStringConvertible {
    package let step: String
    package let errno: Int32

    package var description: String { "\(step) failed: errno \(errno)" }
}
