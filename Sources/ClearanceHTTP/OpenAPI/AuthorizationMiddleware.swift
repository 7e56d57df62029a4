import Clearance
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientMiddleware` that gives OpenAPI-generated clients Clearance's
/// behaviour: the policy's credential per operation, transport security, and on a 401 that allows
/// it one shared refresh and one retry. Redirects are the transport's business there; use
/// transports that do not follow them across origins (both of ClearanceHTTP's never follow them).
///
/// The request body is buffered (up to ``maximumBufferedBody``) so the one retry can resend it.
public struct AuthorizationMiddleware: ClientMiddleware {
    /// The authorizer applied to every operation.
    public let authorizer: RequestAuthorizer
    /// The largest request body buffered for a retry.
    public let maximumBufferedBody: Int

    public init(authorizer: RequestAuthorizer, maximumBufferedBody: Int = 4 << 20) {
        self.authorizer = authorizer
        self.maximumBufferedBody = maximumBufferedBody
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // The policy sees the full request: scheme and host from the base URL, its path prefixed.
        var absolute = request
        absolute.scheme = baseURL.scheme
        absolute.authority = baseURL.port.map { "\(baseURL.host ?? ""):\($0)" } ?? baseURL.host
        let basePath = baseURL.path.hasSuffix("/") ? String(baseURL.path.dropLast()) : baseURL.path
        absolute.path = basePath + (request.path ?? "")

        var replayable = body
        if let body, body.iterationBehavior == .single {
            replayable = HTTPBody(try await Data(collecting: body, upTo: maximumBufferedBody))
        }
        let errorBody: (HTTPBody?) async -> Data = { body in
            guard let body else { return Data() }
            return (try? await Data(collecting: body, upTo: HTTPErrorResponse.maximumBodySize)) ?? Data()
        }
        return try await authorizer.send(absolute, errorBody: errorBody) { outgoing in
            var relative = request
            relative.headerFields = outgoing.headerFields
            if outgoing.path != absolute.path, let path = outgoing.path {
                // A query-parameter credential changed the path: keep the operation's own path plus the new query.
                relative.path = String(path.dropFirst(basePath.count))
            }
            return try await next(relative, replayable, baseURL)
        }
    }
}
