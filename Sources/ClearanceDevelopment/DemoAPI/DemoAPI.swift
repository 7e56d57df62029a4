import Clearance
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOCore

/// A Bloomreach-shaped API for demos and tests, on loopback: public endpoints that require
/// `Authorization: Token <apiKey>`, private App Inbox endpoints that require a customer JWT
/// (`Bearer`, HS256, checked with jwt-kit), plus a few helpers (redirects, an always-401 route,
/// an echo that reports whether a credential arrived without ever echoing it).
public struct DemoAPI: Sendable {
    /// The API key the public endpoints accept.
    public let apiKey: String
    /// What the server saw.
    public let stats = DemoAPIStats()
    private let keys: JWTKeyCollection
    private let keyID = "demo-private-api-key-id"

    /// - Parameters:
    ///   - apiKey: The public API key to accept.
    ///   - signingKey: The HS256 key for customer tokens (at least 32 bytes; random by default).
    public init(apiKey: String = "demo-public-api-key", signingKey: SymmetricKey = SymmetricKey(size: .bits256)) async {
        self.apiKey = apiKey
        self.keys = JWTKeyCollection()
        let secret = signingKey.withUnsafeBytes { Data($0) }
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: keyID))
    }

    /// Mints a customer token the way the app's backend would (Bloomreach: HS256, `kid` header, `sub` = customer ids).
    public func mintCustomerToken(customerIDs: [String: String], expiresAt: Date?) async throws -> String {
        try await keys.sign(CustomerTokenClaims(customerIDs: customerIDs, expiresAt: expiresAt), kid: JWKIdentifier(string: keyID))
    }

    /// The routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        let publicRoutes = [
            "/track/v2/projects/{projectToken}/customers",
            "/track/v2/projects/{projectToken}/customers/events",
            "/data/v2/projects/{projectToken}/customers/attributes",
        ]
        for path in publicRoutes {
            router.post(RouterPath(path)) { request, _ in
                await self.publicEndpoint(request, route: path)
            }
        }
        for path in ["/webxp/projects/{projectToken}/appinbox/fetch", "/webxp/projects/{projectToken}/appinbox/markasread"] {
            router.post(RouterPath(path)) { request, _ in
                await self.privateEndpoint(request, route: path)
            }
        }
        router.get("/always-401") { request, _ in
            await stats.record("always-401", hadAuthorization: request.headers[.authorization] != nil)
            return Self.json(.unauthorized, ["error": "invalid_token"], challenge: #"Bearer realm="demo", error="invalid_token""#)
        }
        router.get("/redirect") { request, _ in
            await stats.record("redirect", hadAuthorization: request.headers[.authorization] != nil)
            let target = request.uri.queryParameters.get("to") ?? "/echo"
            return Response(status: .found, headers: [.location: target])
        }
        router.post("/redirect") { request, _ in
            await stats.record("redirect", hadAuthorization: request.headers[.authorization] != nil)
            let target = request.uri.queryParameters.get("to") ?? "/echo"
            let status: HTTPResponse.Status = request.uri.queryParameters.get("status").flatMap(Int.init).map { .init(code: $0) } ?? .temporaryRedirect
            return Response(status: status, headers: [.location: target])
        }
        for method in [HTTPRequest.Method.get, .post] {
            router.on("/echo", method: method) { request, _ in
                let present = request.headers[.authorization] != nil
                await stats.record("echo", hadAuthorization: present)
                let scheme = request.headers[.authorization].flatMap { $0.split(separator: " ").first.map(String.init) } ?? ""
                return Self.json(.ok, ["authorization": present ? "present" : "absent", "scheme": scheme, "method": request.method.rawValue])
            }
        }
        return router
    }

    private func publicEndpoint(_ request: Request, route: String) async -> Response {
        let header = request.headers[.authorization]
        await stats.record(route, hadAuthorization: header != nil)
        guard let header, ConstantTime.equals(header, "Token \(apiKey)") else {
            return Self.json(.unauthorized, ["error": "a valid API key is required"], challenge: #"Token realm="demo""#)
        }
        return Self.json(.ok, ["success": "true"])
    }

    private func privateEndpoint(_ request: Request, route: String) async -> Response {
        let header = request.headers[.authorization]
        await stats.record(route, hadAuthorization: header != nil)
        guard let header, header.hasPrefix("Bearer ") else {
            return Self.json(.unauthorized, ["error": "a customer token is required"], challenge: #"Bearer realm="demo""#)
        }
        do {
            let claims = try await keys.verify(String(header.dropFirst(7)), as: CustomerTokenClaims.self)
            return Self.json(.ok, ["success": "true", "customer": claims.sub.values.sorted().joined(separator: ",")])
        } catch {
            return Self.json(.unauthorized, ["error": "invalid_token"], challenge: #"Bearer realm="demo", error="invalid_token", error_description="the customer token is invalid or expired""#)
        }
    }


    static func json(_ status: HTTPResponse.Status, _ object: [String: String], challenge: String? = nil) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json"]
        if let challenge { headers[.wwwAuthenticate] = challenge }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
