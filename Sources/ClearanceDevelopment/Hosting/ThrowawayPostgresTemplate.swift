import Foundation

/// The data directory every ``ThrowawayPostgres`` of this process starts from: `initdb` runs once
/// (0.8 s of CPU each time: a test run made 29 clusters), and each cluster gets a copy (`cp -a`,
/// which keeps the `postgres` owner and the modes). Removed when the process exits (``ProcessDirectory``).
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


    private static func make(binaries: URL) async throws -> URL {
        let root = try ProcessDirectory.make("clearance-pg-template")
        if ThrowawayPostgres.isRoot { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: root.path) }
        let data = root.appendingPathComponent("data")
        try await ThrowawayPostgres.command(
            "initdb", ["-D", data.path, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], binaries: binaries, directory: root)
        return data
    }
}
