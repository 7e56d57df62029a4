import Foundation
import HTTPTypes
import Hummingbird

/// Cross-Origin Resource Sharing for the origins of an ``OriginAllowlist`` (see
/// ``CORSSettings``), as a Hummingbird middleware. Unlike Hummingbird's own `CORSMiddleware`,
/// origins are compared in their normal form (``WebOrigin``) and a preflight from an origin not
/// listed is refused with 403.
///
/// - Without `Origin`: not a browser's cross-origin call; passed on untouched.
/// - `OPTIONS` from an allowed origin: `204` with `Access-Control-Allow-Origin: <that origin>`,
///   `Access-Control-Allow-Methods`, `Access-Control-Allow-Headers` (the ones the preflight
///   asks for, or ``CORSSettings/defaultAllowedHeaders``), `Access-Control-Max-Age`,
///   `Vary: Origin`, and `Access-Control-Allow-Credentials: true` when
///   ``CORSSettings/sendsCredentials``.
/// - `OPTIONS` from another origin: `403`, no CORS header.
/// - Any other method: passed on; the answer gets `Access-Control-Allow-Origin` (and
///   credentials) for an allowed origin, and `Vary: Origin` in every case.
///
/// A route group needs a route for `OPTIONS` for its middleware to see preflights:
/// ``PusherAuthEndpoints`` mounts one.
public struct AllowedOriginsCORS<Context: RequestContext>: RouterMiddleware {
    /// What is answered.
    public let settings: CORSSettings
    /// The methods named in `Access-Control-Allow-Methods`.
    public let methods: [HTTPRequest.Method]

    /// - Parameters:
    ///   - settings: Origins, credentials, preflight cache time.
    ///   - methods: The methods allowed cross origin (default `POST`).
    public init(_ settings: CORSSettings, methods: [HTTPRequest.Method] = [.post]) {
        self.settings = settings
        self.methods = methods
    }

    /// Answers a preflight, or passes the request on and adds the CORS headers to its answer.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin] else { return try await next(request, context) }
        let allowed = settings.origins.allows(origin)
        if request.method == .options {
            guard allowed else { return Response(status: .forbidden, headers: [.vary: "Origin"]) }
            var headers = allowHeaders(origin)
            headers[.accessControlAllowMethods] = methods.map(\.rawValue).joined(separator: ", ")
            headers[.accessControlAllowHeaders] = Self.allowedHeaders(requested: request.headers[.accessControlRequestHeaders])
            headers[.accessControlMaxAge] = String(settings.maxAge)
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if allowed {
            for field in allowHeaders(origin) where field.name != .vary { response.headers[field.name] = field.value }
        }
        if !(response.headers[values: .vary].contains { $0.caseInsensitiveCompare("Origin") == .orderedSame }) {
            response.headers.append(HTTPField(name: .vary, value: "Origin"))
        }
        return response
    }

    private func allowHeaders(_ origin: String) -> HTTPFields {
        var headers: HTTPFields = [.accessControlAllowOrigin: origin, .vary: "Origin"]
        if settings.sendsCredentials { headers[.accessControlAllowCredentials] = "true" }
        return headers
    }

    /// The requested header names when they all are plain header names (at most 20, each at
    /// most 64 characters), otherwise the default list.
    private static func allowedHeaders(requested: String?) -> String {
        guard let requested else { return CORSSettings.defaultAllowedHeaders.joined(separator: ", ") }
        let names = requested.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty, names.count <= 20,
              names.allSatisfy({ $0.utf8.count <= 64 && HTTPField.Name($0) != nil })
        else { return CORSSettings.defaultAllowedHeaders.joined(separator: ", ") }
        return names.joined(separator: ", ")
    }
}
