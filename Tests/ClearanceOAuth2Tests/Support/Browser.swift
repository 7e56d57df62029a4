import ClearanceHTTP
import Foundation
import HTTPTypes

/// A scripted browser: GET, follow redirects to loopback, no credentials.
enum Browser {
    static func follow(_ url: URL) async throws {
        var next: URL? = url
        var hops = 0
        while let current = next, hops < 5 {
            hops += 1
            let components = URLComponents(url: current, resolvingAgainstBaseURL: false)!
            let request = HTTPRequest(
                method: .get, scheme: components.scheme, authority: "\(components.host!):\(components.port!)",
                path: components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? ""))
            let (response, _) = try await AsyncHTTPClientHTTPTransport.shared.send(request, body: nil)
            next = response.headerFields[.location].flatMap { URL(string: $0, relativeTo: current)?.absoluteURL }
        }
    }
}
