import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes

/// A transport that fails the next `failures` requests with a connection error, then passes
/// requests on to AsyncHTTPClient.
final class FlakyTransport: HTTPTransport {
    private let remaining: Locked<Int>

    init(failures: Int = 0) {
        remaining = Locked(failures)
    }

    func failNext(_ count: Int) { remaining.withLock { $0 = count } }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let fail = remaining.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        if fail { throw URLError(.cannotConnectToHost) }
        return try await AsyncHTTPClientHTTPTransport.shared.send(request, body: body)
    }
}
