#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two system calls that make a replaced file durable, as a seam: ``AtomicFile`` and the
/// entitlement downloads make them through it, and a test can watch them (or make them fail).
///
/// Each returns what the system call does: 0, or -1 with `errno` set.
package protocol FileSyncing: Sendable {
    /// `fsync(2)` of `descriptor`, open at `path` (a file, or a directory after a rename).
    func synchronize(_ descriptor: Int32, path: String) -> Int32
    /// `rename(2)` of `source` over `destination`.
    func rename(_ source: String, over destination: String) -> Int32
}

/// The system's own `fsync(2)` and `rename(2)`.
package struct SystemFileSyncing: FileSyncing {
    package init() {}

    package func synchronize(_ descriptor: Int32, path: String) -> Int32 {
        fsync(descriptor)
    }

    package func rename(_ source: String, over destination: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.rename(source, destination)
        #elseif canImport(Musl)
        Musl.rename(source, destination)
        #else
        Darwin.rename(source, destination)
        #endif
    }
}
