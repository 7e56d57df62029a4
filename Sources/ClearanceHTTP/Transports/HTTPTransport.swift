import Foundation
import HTTPTypes

/// Sends one HTTP request and returns the response with its whole body.
///
/// A transport must **not** follow redirects: ``AuthorizedClient`` follows them itself, so that a
/// credential never reaches another origin. Both built-in transports are configured that way.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body`; returns the response head and its body.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)
}
