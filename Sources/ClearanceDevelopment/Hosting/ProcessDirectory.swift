import Clearance
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Folders that belong to this process: `/tmp/NAME-PID`, made empty on first use and removed
/// when the process exits (one `atexit` for all of them). For what outlives the test that made
/// it: the data directory every ``ThrowawayPostgres`` copies, the configuration file a restarted
/// `clearance serve` reads again.
package enum ProcessDirectory {
    private static let made = Locked<[URL]>([])
    private static let removal: Void = {
        atexit {
            for url in ProcessDirectory.made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
        }
    }()

    /// `/tmp/NAME-PID`, created empty (whatever an earlier process of the same id left is
    /// removed first) and removed when this process exits. Call it once per name.
    package static func make(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: "/tmp").appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        _ = removal
        made.withLock { $0.append(url) }
        return url
    }
}
