import Clearance
import Foundation

/// The URLs the "browser" opened.
final class OpenedURLs: Sendable {
    private let urls = Locked<[URL]>([])
    func append(_ url: URL) { urls.withLock { $0.append(url) } }
    var all: [URL] { urls.withLock { $0 } }
}
