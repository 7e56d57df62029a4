import ClearanceHTTP
import Foundation
import HTTPTypes

/// A scripted browser: GET, follow redirects (to a loopback redirect listener, say), no credentials.
package enum Browser {
    /// Follows `url` through at most `maximumHops` redirects; returns the last answer's status
    /// and the URL it came from.
    @discardableResult
    package static func follow(_ url: URL, maximumHops: Int = 5) async throws -> (status: Int, url: URL) {
        var current = url
        var hops = 0
        while true {
            hops += 1
            let (response, _) = try await AsyncHTTPClientHTTPTransport.shared.send(HTTPRequest(method: .get, url: current), body: nil)
            guard hops < maximumHops, let next = response.headerFields[.location].flatMap({ URL(string: $0, relativeTo: current)?.absoluteURL }) else {
                return (response.status.code, current)
            }
            current = next
        }
    }
}
