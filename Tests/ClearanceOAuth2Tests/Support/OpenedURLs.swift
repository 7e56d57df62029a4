import Clearance
import Foundation

/// URLs collected from a `@Sendable` closure.
final class OpenedURLs: Sendable {
    private let urls = Locked<[URL]>([])
    func append(_ url: URL) { urls.withLock { $0.append(url) } }
    var all: [URL] { urls.withLock { $0 } }
}
