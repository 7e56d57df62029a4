import Clearance
import ClearanceWire
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The OpenID provider half of the development provider: discovery, the key set, the
/// authorization endpoint, ID tokens, UserInfo and the end-session endpoint.
extension DevelopmentOAuth2Provider {
    func addOpenIDRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/.well-known/openid-configuration") { request, _ in
            discovery(issuer: issuer(of: request))
        }
        router.get("/oauth/jwks") { _, _ in
            await ledger.countKeySetRequest()
            return Self.json(openIDKeys.keySet)
        }
        router.get("/oauth/authorize") { request, _ in
            // A real authorization request is a few hundred bytes; its fields are kept with the code.
            guard (request.uri.query?.utf8.count ?? 0) <= Self.maxAuthorizationQueryBytes else {
                return Self.page("The authorization request is too long", status: .badRequest)
            }
            return await authorize(OAuth2FormBody.fields(request.uri.query ?? ""))
        }
        router.get("/oauth/userinfo") { request, _ in
            await userInfo(authorization: request.headers[.authorization])
        }
        router.post("/oauth/userinfo") { request, _ in
            await userInfo(authorization: request.headers[.authorization])
        }
        router.get("/oauth/logout") { request, _ in
            await endSession(OAuth2FormBody.fields(request.uri.query ?? ""))
        }
    }

    /// The issuer: the configured one, else `http://<Host>` of the request (development only:
    /// the request names the host it reached).
    func issuer(of request: Request) -> String {
        if let issuer = configuration.openIDIssuer { return issuer.absoluteString }
        return "http://\(request.head.authority ?? "127.0.0.1")"
    }

    private func discovery(issuer: String) -> Response {
        Self.json([
            "issuer": issuer,
            "authorization_endpoint": issuer + "/oauth/authorize",
            "token_endpoint": issuer + "/oauth/token",
            "jwks_uri": issuer + "/oauth/jwks",
            "userinfo_endpoint": issuer + "/oauth/userinfo",
            "end_session_endpoint": issuer + "/oauth/logout",
            "revocation_endpoint": issuer + "/oauth/revoke",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "scopes_supported": ["openid", "email", "profile"],
            "grant_types_supported": ["authorization_code", "refresh_token", "password", "client_credentials", "app"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "email", "name"],
        ])
    }

    /// `GET /oauth/authorize`: no login page in development: signs in the `login_hint` user (or
    /// the first configured one) and redirects to the client's loopback redirect URI with a code.
    /// A request that cannot be redirected safely (unknown client, a redirect URI that is not
    /// loopback) gets a 400 page instead.
    private func authorize(_ query: [String: String]) async -> Response {
        guard let clientID = query["client_id"], configuration.clients[clientID] != nil || configuration.publicClients.contains(clientID) else {
            return Self.page("Unknown client", status: .badRequest)
        }
        guard let redirect = query["redirect_uri"], let redirectURL = URL(string: redirect), Self.isLoopbackRedirect(redirectURL) else {
            return Self.page("The development provider only redirects to loopback redirect URIs (http://127.0.0.1:PORT/…)", status: .badRequest)
        }
        func fail(_ code: String, _ description: String) -> Response {
            Self.redirect(to: redirectURL, ["error": code, "error_description": description, "state": query["state"]])
        }
        guard query["response_type"] == "code" else { return fail("unsupported_response_type", "only response_type=code") }
        guard let challenge = query["code_challenge"], query["code_challenge_method"] == "S256" else {
            return fail("invalid_request", "PKCE with code_challenge_method=S256 is required")
        }
        let user = query["login_hint"].flatMap { configuration.users[$0] == nil ? nil : $0 } ?? configuration.users.keys.sorted().first
        guard let user else { return fail("access_denied", "no development user is configured") }
        let code = Self.randomToken()
        let now = Date()
        await ledger.store(code: code, .init(
            subject: "user:\(user)", clientID: clientID, redirectURI: redirect, codeChallenge: challenge, scope: query["scope"],
            nonce: query["nonce"], authTime: now, expiresAt: now.addingTimeInterval(60)))
        logger.debug("authorization code issued", metadata: ["client_id": "\(clientID)", "user": "\(user)"])
        return Self.redirect(to: redirectURL, ["code": code, "state": query["state"]])
    }

    /// An ID token for `subject`, signed with the provider's ES256 key.
    func idToken(subject: String, clientID: String, issuedAt: Date, lifetime: TimeInterval, grant: OpenIDGrant) async throws -> String {
        let user = subject.hasPrefix("user:") ? String(subject.dropFirst(5)) : nil
        let claims = DevelopmentIDTokenClaims(
            issuer: grant.issuer, subject: subject, clientID: clientID, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(lifetime),
            authTime: grant.authTime, nonce: grant.nonce, email: user.flatMap { $0.contains("@") ? $0 : nil },
            name: user.map(Self.displayName))
        return try await openIDKeys.sign(claims)
    }

    /// `GET|POST /oauth/userinfo` with a Bearer access token issued with `openid`.
    private func userInfo(authorization: String?) async -> Response {
        await ledger.countUserInfo()
        let parts = authorization?.split(separator: " ", maxSplits: 1) ?? []
        guard parts.count == 2, parts[0].lowercased() == "bearer", let claims = try? await verify(accessToken: String(parts[1])) else {
            return Self.error("invalid_token", status: .unauthorized, challenge: #"Bearer realm="clearance-development", error="invalid_token""#)
        }
        guard Self.scopes(claims.scope).contains("openid") else {
            return Self.error("insufficient_scope", status: .forbidden, challenge: #"Bearer realm="clearance-development", error="insufficient_scope", scope="openid""#)
        }
        var body: [String: Any] = ["sub": claims.sub.value]
        if claims.sub.value.hasPrefix("user:") {
            let user = String(claims.sub.value.dropFirst(5))
            body["name"] = Self.displayName(user)
            if user.contains("@") { body["email"] = user }
        }
        return Self.json(body)
    }

    /// `GET /oauth/logout` (RP-Initiated Logout): the `id_token_hint` must be one this provider
    /// signed (expired ones too) for `client_id` when given; then a redirect to a loopback
    /// `post_logout_redirect_uri` with `state`, or a "signed out" page.
    private func endSession(_ query: [String: String]) async -> Response {
        if let hint = query["id_token_hint"] {
            guard let claims = try? await openIDKeys.verify(hint), query["client_id"].map({ claims.aud.value.contains($0) }) ?? true else {
                return Self.page("The id_token_hint was not issued by this provider for this client", status: .badRequest)
            }
        }
        if let target = query["post_logout_redirect_uri"] {
            guard let url = URL(string: target), Self.isLoopbackRedirect(url) else {
                return Self.page("The development provider only redirects to loopback URIs", status: .badRequest)
            }
            await ledger.countEndSession()
            return Self.redirect(to: url, ["state": query["state"]])
        }
        await ledger.countEndSession()
        return Self.page("Signed out of the development provider")
    }

    // MARK: - Helpers

    /// The longest authorization request query the provider reads (its fields are kept with the
    /// code until it is exchanged).
    static let maxAuthorizationQueryBytes = 8_192

    static func scopes(_ scope: String?) -> [String] {
        scope?.split(separator: " ").map(String.init) ?? []
    }

    /// `BASE64URL(SHA256(verifier))` (RFC 7636 S256).
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    static func randomToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Data($0)) }
    }

    /// `jane@example.com` → `Jane`.
    static func displayName(_ user: String) -> String {
        String(user.split(separator: "@").first ?? Substring(user)).capitalized
    }

    /// http(s) to 127.0.0.1, ::1 or localhost.
    static func isLoopbackRedirect(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased() else { return false }
        return ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
    }

    /// A 302 to `url` with `parameters` (nil values left out) added to its query.
    static func redirect(to url: URL, _ parameters: [String: String?]) -> Response {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        let added = parameters.sorted { $0.key < $1.key }.compactMap { name, value in value.map { (name: name, value: $0) } }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? [] : [$0] } ?? []
        components.percentEncodedQuery = (existing + (added.isEmpty ? [] : [FormFields.encode(added, style: .rfc3986)])).joined(separator: "&")
        var headers = noStore
        headers[.location] = components.url?.absoluteString ?? url.absoluteString
        return Response(status: .found, headers: headers)
    }

    static func page(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = noStore
        headers[.contentType] = "text/html; charset=utf-8"
        let html = "<!doctype html><meta charset=utf-8><title>Clearance development provider</title><p>\(text)</p>"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
