#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`), and the share of it the hub may spend on
/// sockets.
///
/// A process that runs out of descriptors does not fail one accept: Swift's executor on Linux
/// (libdispatch) traps when it cannot open a descriptor for its own monitoring. So the hub
/// raises its soft limit to the hard one when it starts, and keeps a reserve beyond its sockets
/// for everything else the process opens: PostgreSQL connections, outgoing HTTP, files,
/// libdispatch's and NIO's own descriptors (a tenth of the limit, at least 64, at most 4,096; at
/// least half the limit stays for sockets).
struct DescriptorLimit: Sendable, Equatable {
    /// The soft limit, after raising it.
    let limit: Int
    /// The hard limit.
    let hardLimit: Int

    /// The descriptors kept for everything but accepted sockets.
    var reserve: Int { limit - budget }

    /// The sockets the hub may hold open at once.
    var budget: Int { Self.budget(forLimit: limit) }

    /// The socket budget under a limit of `limit` descriptors.
    static func budget(forLimit limit: Int) -> Int {
        let reserve = min(max(64, limit / 10), 4_096)
        return max(limit / 2, limit - reserve)
    }

    /// Raises the soft limit to the hard one (on macOS, to `OPEN_MAX` when the hard limit is
    /// unlimited) and returns the limits then in force; `nil` when they cannot be read.
    static func raised() -> DescriptorLimit? {
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return nil }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(resource, &raised) != 0 {
                // macOS refuses an unlimited soft limit for files: OPEN_MAX is the most it takes.
                raised.rlim_cur = min(limits.rlim_max, 10_240)
                _ = setrlimit(resource, &raised)
            }
            _ = getrlimit(resource, &limits)
        }
        return DescriptorLimit(limit: clamp(limits.rlim_cur), hardLimit: clamp(limits.rlim_max))
    }

    /// An unlimited (or absurd) value counts as 2^20: far beyond any socket the hub holds.
    private static func clamp(_ value: rlim_t) -> Int {
        value >= rlim_t(1 << 20) ? 1 << 20 : Int(value)
    }

    #if canImport(Glibc)
    private static var resource: __rlimit_resource_t { __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)) }
    #else
    private static var resource: Int32 { RLIMIT_NOFILE }
    #endif
}
