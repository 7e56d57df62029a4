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
}
