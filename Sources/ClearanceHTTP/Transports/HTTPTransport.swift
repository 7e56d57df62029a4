import Foundation
import HTTPTypes

/// Sends one HTTP request and returns the response with its whole body, or hands the body over
/// as it arrives (``stream(_:body:receive:)``, for downloads).
///
/// A transport must **not** follow redirects: ``AuthorizedClient`` follows them itself, so that a
/// credential never reaches another origin. Both built-in transports are configured that way.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body`; returns the response head and its body.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)

    /// Sends `request` with `body` and calls `receive` with the response head and its body as it
    /// arrives; returns what `receive` returns. The request ends (and its connection is
    /// released or closed) when `receive` returns or throws; cancelling the task cancels it.
    ///
    /// The default implementation calls ``send(_:body:)`` and hands over the whole body as one
    /// chunk; the built-in transports stream.
    func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result
}

extension HTTPTransport {
    public func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        let (response, data) = try await send(request, body: body)
        return try await receive(response, .complete(data))
    }
}
