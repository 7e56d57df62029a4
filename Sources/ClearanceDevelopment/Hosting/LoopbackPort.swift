import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback ports for servers started as processes that must be found again on the same port
/// (a hub restarted in a test, a throwaway database).
package enum LoopbackPort {
    /// No port could be had.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now: the one the system picks for port 0.
    package static func free() throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw LoopbackPort.Failure(description: "socket() failed: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw LoopbackPort.Failure(description: "bind() on 127.0.0.1 failed: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
