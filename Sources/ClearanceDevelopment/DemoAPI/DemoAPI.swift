import Clearance
import ClearanceServer
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A Bloomreach-shaped API for demos and tests, on loopback: public endpoints that require
/// `Authorization: Token <apiKey>`, private App Inbox endpoints behind `CustomerTokenMiddleware`
/// (a customer JWT, `Bearer`, HS256, `kid` = ``customerTokenKeyID``), plus a few helpers
/// (redirects, an always-401 route, an echo that reports whether a credential arrived without
/// ever echoing it).
public struct DemoAPI: Sendable {
    /// The key id customer tokens name.
    public static let customerTokenKeyID = "demo-private-api-key-id"

    /// The API key the public endpoints accept.
    public let apiKey: String
    /// What the server saw.
    public let stats = DemoAPIStats()
    private let customerTokens: Result<(minter: CustomerTokenMinter, verifier: CustomerTokenVerifier), CustomerTokenError>

    /// - Parameters:
    ///   - apiKey: The public API key to accept.
    ///   - signingKey: The secret of customer tokens (at least 32 bytes, else every private
    ///     request is answered 500 and minting throws `CustomerTokenError.weakSecret`);
    ///     random by default.
    public init(apiKey: String = "demo-public-api-key", signingKey: SymmetricKey = SymmetricKey(size: .bits256)) async {
        self.apiKey = apiKey
        customerTokens = await Self.customerTokens(secret: signingKey.withUnsafeBytes { Data($0) })
    }

    private static func customerTokens(secret: Data) async -> Result<(minter: CustomerTokenMinter, verifier: CustomerTokenVerifier), CustomerTokenError> {
        do throws(CustomerTokenError) {
            let key = try CustomerTokenKey(id: customerTokenKeyID, secret: secret)
            return .success((await CustomerTokenMinter(key: key), try await CustomerTokenVerifier(keys: [key])))
        } catch {
            return .failure(error)
        }
    }

    /// Mints a customer token the way the app's backend would (`CustomerTokenMinter`: HS256,
    /// `kid` header, `sub` = customer ids). A past `expiresAt` mints an expired token.
    public func mintCustomerToken(customerIDs: [String: String], expiresAt: Date?) async throws -> String {
        try await customerTokens.get().minter.mint(customerIDs: customerIDs, expiresAt: expiresAt)
    }

    /// The routes.
    public func router() -> Router<BasicCustomerTokenRequestContext> {
        let router = Router(context: BasicCustomerTokenRequestContext.self)
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
            let group = router.group().add(middleware: DemoAPIRecorder(route: path, stats: stats))
            switch customerTokens {
            case .success(let tokens):
                group.add(middleware: CustomerTokenMiddleware(verifier: tokens.verifier, realm: "demo")).post(RouterPath(path)) { _, context in
                    await self.privateEndpoint(context.customerToken)
                }
            case .failure(let error):
                group.post(RouterPath(path)) { _, _ in Self.json(.internalServerError, ["error": error.qualifiedCode, "message": error.message]) }
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

    private func privateEndpoint(_ token: VerifiedCustomerToken?) async -> Response {
        guard let token else { return Self.json(.unauthorized, ["error": "a customer token is required"]) }
        await stats.record(customer: token.customerIDs)
        return Self.json(.ok, ["success": "true", "customer": token.customerIDs.values.sorted().joined(separator: ",")])
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: String], challenge: String? = nil) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json"]
        if let challenge { headers[.wwwAuthenticate] = challenge }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
