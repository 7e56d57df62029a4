import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
package struct TemporaryDirectory: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    package func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    package func remove() { try? FileManager.default.removeItem(at: url) }

    /// Runs `body` with a fresh directory's URL and removes the directory afterwards, also when
    /// `body` throws.
    package static func with<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory()
        return try await withCleanup { try await body(directory.url) } cleanup: { directory.remove() }
    }
}
