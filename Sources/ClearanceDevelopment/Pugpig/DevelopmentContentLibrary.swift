import Clearance
import Foundation
import Hummingbird

/// What the development server serves under `/content/{product}/…`: files held in memory (the
/// demo's and the benchmark's editions) and, when configured, a directory on disk
/// (`<directory>/<product>/<path>`).
public final class DevelopmentContentLibrary: Sendable {
    private let files = Locked<[String: ByteBuffer]>([:])
    /// The directory served, if any.
    public let directory: URL?

    /// A library serving `directory` (if any) and what ``add(_:product:path:)`` puts in memory.
    public init(directory: URL? = nil) {
        self.directory = directory
    }

    /// Serves `data` at `/content/<product>/<path>`.
    public func add(_ data: Data, product: String, path: String) {
        files.withLock { $0["\(product)/\(path)"] = ByteBuffer(bytes: data) }
    }

    /// The file at `path` of `product`: from memory, else from the directory; nil when there is
    /// none or the path tries to leave the product's folder.
    func file(product: String, path: [Substring]) -> ByteBuffer? {
        guard !path.isEmpty, !path.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }), !product.contains("/"), product != "..", product != "." else { return nil }
        let relative = path.joined(separator: "/")
        if let buffer = files.withLock({ $0["\(product)/\(relative)"] }) { return buffer }
        guard let directory else { return nil }
        let url = directory.appendingPathComponent(product, isDirectory: true).appendingPathComponent(relative)
        guard let data = try? Data(contentsOf: url) else { return nil }
        return ByteBuffer(bytes: data)
    }
}
