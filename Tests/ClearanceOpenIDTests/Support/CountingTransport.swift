import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes

/// The shared AsyncHTTPClient transport, counting the requests per path (how often a provider's
/// key set was fetched, say).
final class CountingTransport: HTTPTransport {
    private let counts = Locked([String: Int]())

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let path = request.path.map { String($0.split(separator: "?", maxSplits: 1).first ?? "") } ?? ""
        counts.withLock { $0[path, default: 0] += 1 }
        return try await AsyncHTTPClientHTTPTransport.shared.send(request, body: body)
    }

    /// The requests for `path` so far.
    func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
}
