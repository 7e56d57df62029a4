import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory every ``ThrowawayPostgres`` of this process starts from: `initdb` runs once
/// (0.8 s of CPU each time: a test run made 29 clusters), and each cluster gets a copy (`cp -a`,
/// which keeps the `postgres` owner and the modes). Removed when the process exits.
actor ThrowawayPostgresTemplate {
    /// The process's one template.
    static let shared = ThrowawayPostgresTemplate()

    private var made: Task<URL, any Error>?

    /// The template's `data` directory, made by the first caller (the others wait for it); a
    /// failure (PostgreSQL missing, say) is every caller's.
    func dataDirectory(binaries: URL) async throws -> URL {
        if let made { return try await made.value }
        let task = Task { try await Self.make(binaries: binaries) }
        made = task
        return try await task.value
    }

    /// `/tmp/clearance-pg-template-<pid>`: named by the process, so that removing it at exit
    /// needs no state.
    private static var root: URL {
        URL(fileURLWithPath: "/tmp").appendingPathComponent("clearance-pg-template-\(getpid())")
    }

    private static func make(binaries: URL) async throws -> URL {
        let root = root
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: ThrowawayPostgresTemplate.root) }
        if ThrowawayPostgres.isRoot { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: root.path) }
        let data = root.appendingPathComponent("data")
        try await ThrowawayPostgres.command(
            "initdb", ["-D", data.path, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], binaries: binaries, directory: root)
        return data
    }
}
