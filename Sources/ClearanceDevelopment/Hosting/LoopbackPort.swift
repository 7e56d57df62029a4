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

    /// A TCP port on 127.0.0.1 that nothing uses now, below the system's range of ephemeral
    /// ports: a client retrying to connect to a server that is down (restarting) could otherwise
    /// be given that very port as its own and connect to itself, and the server could not bind
    /// it again.
    package static func free() throws -> Int {
        let lowestEphemeral = ephemeralRange().lowerBound
        let candidates = 10_000..<max(10_001, lowestEphemeral)
        for _ in 0..<100 {
            let port = Int.random(in: candidates)
            if isFree(port) { return port }
        }
        throw Failure(description: "no free port on 127.0.0.1 in \(candidates)")
    }

    /// The ephemeral port range (`/proc/sys/net/ipv4/ip_local_port_range` on Linux; IANA's
    /// 49152…65535 elsewhere).
    private static func ephemeralRange() -> ClosedRange<Int> {
        if let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) {
            let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            if bounds.count == 2, bounds[0] <= bounds[1] { return bounds[0]...bounds[1] }
        }
        return 49_152...65_535
    }

    /// Whether `port` can be bound on 127.0.0.1 now.
    private static func isFree(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
