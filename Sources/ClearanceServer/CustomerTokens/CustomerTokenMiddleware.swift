import Hummingbird
import Logging

/// Admits a request only with a valid customer token (`Authorization: Bearer <jwt>`, checked by
/// a ``CustomerTokenVerifier``) and hands the verified customer to the routes behind it in
/// ``CustomerTokenRequestContext/customerToken``.
///
/// Anything else is answered 401 with `{"error": "<qualified code>", "message": "…"}` and an
/// RFC 6750 challenge (`error="invalid_token"` when a token was sent, so a client refreshes it
/// once): the body says why, never echoing the token, and the refusal is logged by code only.
///
/// ```swift
/// let inbox = router.group("webxp").add(middleware: CustomerTokenMiddleware(verifier: verifier))
/// inbox.post("projects/{projectToken}/appinbox/fetch") { _, context in
///     "inbox of \(context.customerToken?.customerIDs["registered"] ?? "?")"
/// }
/// ```
public struct CustomerTokenMiddleware<Context: CustomerTokenRequestContext>: RouterMiddleware {
    private let verifier: CustomerTokenVerifier
    private let realm: String

    /// - Parameters:
    ///   - verifier: Checks the tokens.
    ///   - realm: The challenge's realm.
    public init(verifier: CustomerTokenVerifier, realm: String = "clearance") {
        self.verifier = verifier
        self.realm = realm.filter { $0 != "\"" && $0 != "\\" }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = AuthorizationHeader.credentials(in: request, scheme: "bearer"), !token.isEmpty else {
            return refusal(.missingToken, context: context)
        }
        var context = context
        do {
            context.customerToken = try await verifier.verify(token)
        } catch {
            return refusal(error, context: context)
        }
        return try await next(request, context)
    }

    private func refusal(_ error: CustomerTokenError, context: Context) -> Response {
        context.logger.info("customer token refused", metadata: ["code": "\(error.qualifiedCode)"])
        var response = JSONResponse.error(.unauthorized, code: error.qualifiedCode, message: error.message)
        let description = error.message.filter { $0 != "\"" && $0 != "\\" }
        response.headers[.wwwAuthenticate] = error == .missingToken
            ? #"Bearer realm="\#(realm)""#
            : #"Bearer realm="\#(realm)", error="invalid_token", error_description="\#(description)""#
        return response
    }
}
