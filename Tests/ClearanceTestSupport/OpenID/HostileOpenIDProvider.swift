import Clearance
import ClearanceDevelopment
import ClearanceWire
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// An OpenID provider written to misbehave on purpose (go-oidc's `oidctest`, with knobs): its
/// discovery document, key set, authorization, token and UserInfo endpoints answer as the
/// test's ``Behaviour`` says, so that every OpenID RP certification case a native code-flow
/// client must handle can be played against a real HTTP server on loopback.
///
/// By default it behaves: discovery with its own issuer, an RS256 and an ES256 key, the
/// authorization endpoint redirecting at once with a code, ID tokens signed RS256 with the
/// nonce, refresh with a new ID token and a new refresh token (the one used is refused from then
/// on, as django-oauth-toolkit does), revocation that invalidates, UserInfo with the same `sub`.
/// It counts what reached it.
package final class HostileOpenIDProvider: Sendable {
    /// A key of the published key set.
    package struct PublishedKey: Sendable {
        package var key: TestKey
        package var includesKeyID: Bool
        package var keyID: String?
        /// `use`: `sig`, or `enc` for a key that must not verify signatures.
        package var use: String
        package init(_ key: TestKey, includesKeyID: Bool = true, keyID: String? = nil, use: String = "sig") {
            self.key = key
            self.includesKeyID = includesKeyID
            self.keyID = keyID
            self.use = use
        }
    }

    /// How the provider answers.
    package struct Behaviour: Sendable {
        /// The `issuer` of the discovery document; nil: the provider's own URL.
        package var discoveryIssuer: String?
        /// Members replacing the discovery document's (an insecure endpoint, say).
        package var discoveryOverrides: [String: JSONValue] = [:]
        /// `id_token_signing_alg_values_supported` (`none` and HS256 listed: the client must
        /// refuse them by itself).
        package var advertisedAlgorithms = ["RS256", "ES256", "HS256", "none"]
        /// The key set.
        package var publishedKeys: [PublishedKey] = [.init(.rsa), .init(.ec)]
        /// Entries added to the key set as they are (keys Clearance cannot use, say).
        package var rawKeys: [JSONValue] = []
        /// The ID token of a code exchange; nil: none.
        package var signIn: HostileTokenRecipe? = HostileTokenRecipe()
        /// The ID token of a refresh; nil: none.
        package var refresh: HostileTokenRecipe? = HostileTokenRecipe()
        /// Who signs in.
        package var subject = "hostile-subject-1"
        /// UserInfo's `sub`; nil: ``subject``.
        package var userInfoSubject: String?
        /// UserInfo's `Content-Type`.
        package var userInfoContentType = "application/json"
        /// The key set endpoint answers 500.
        package var keySetFails = false
        /// A refresh issues a new refresh token and invalidates the one used; false: the refresh
        /// answer carries none and the one used stays valid.
        package var rotatesRefreshTokens = true

        package init() {}
    }

    /// What reached the provider.
    package struct Counters: Sendable {
        package var discovery = 0
        package var keySet = 0
        package var authorize = 0
        package var tokenRequests: [String: Int] = [:]
        package var userInfo = 0
        package var revocations = 0
        /// The tokens revoked, in order.
        package var revoked: [String] = []
        /// The refresh tokens valid now (issued, neither used up by a rotation nor revoked).
        package var liveRefreshTokens: Set<String> = []
        /// The path of every request, in order.
        package var requests: [String] = []
        /// The query of every authorization request.
        package var authorizeQueries: [[String: String]] = []
        /// The `Authorization` header of every UserInfo request.
        package var userInfoAuthorizations: [String] = []
        /// Every token issued (ID, access and refresh tokens), to search logs and output for.
        package var issued: [String] = []
    }

    private struct State {
        var behaviour: Behaviour
        var counters = Counters()
        var codes: [String: String?] = [:]
        var accessTokens: Set<String> = []
    }

    /// The client id the provider issues tokens for.
    package let clientID: String
    private let state: Locked<State>
    private let clock: @Sendable () -> Date
    private let running = Locked<RunningServer?>(nil)
    private let keys = TestSigningKeys.shared

    private init(behaviour: Behaviour, clientID: String, clock: @escaping @Sendable () -> Date) {
        self.state = Locked(State(behaviour: behaviour))
        self.clientID = clientID
        self.clock = clock
    }

    /// Starts the provider on 127.0.0.1, port 0.
    /// - Parameter clock: The provider's time (the client's, when a test moves it by hand).
    package static func start(
        _ behaviour: Behaviour = Behaviour(), clientID: String = "hostile-client", clock: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> HostileOpenIDProvider {
        let provider = HostileOpenIDProvider(behaviour: behaviour, clientID: clientID, clock: clock)
        let server = try await RunningServer.start(provider.router(), logger: Logger(label: "hostile-openid") { _ in SwiftLogNoOpLogHandler() })
        provider.running.withLock { $0 = server }
        return provider
    }

    /// Stops the server.
    package func stop() async {
        await running.withLock { $0 }?.stop()
    }

    /// The issuer (`http://127.0.0.1:<port>`).
    package var issuer: URL { running.withLock { $0!.baseURL } }

    /// Changes how the provider answers from now on.
    package func behave(_ change: (inout Behaviour) -> Void) {
        state.withLock { change(&$0.behaviour) }
    }

    /// What reached the provider so far.
    package var counters: Counters { state.withLock { $0.counters } }

    /// An ID token made by `recipe` with the provider's correct claims (and `nonce`, if given),
    /// for tests that verify tokens directly.
    package func idToken(_ recipe: HostileTokenRecipe, nonce: String? = nil) async throws -> String {
        let now = clock()
        var claims: [String: JSONValue] = [
            "iss": .string(issuer.absoluteString), "sub": .string(state.withLock { $0.behaviour.subject }), "aud": .string(clientID),
            "exp": .number(String(Int(now.timeIntervalSince1970) + 3_600)), "iat": .number(String(Int(now.timeIntervalSince1970))),
            "auth_time": .number(String(Int(now.timeIntervalSince1970))),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        let token = try await recipe.token(claims: claims, keys: keys)
        state.withLock { $0.counters.issued.append(token) }
        return token
    }

    // MARK: - Endpoints

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: HostileRequestLog(provider: self))
        router.get("/.well-known/openid-configuration") { _, _ in self.discovery() }
        router.get("/jwks") { _, _ in self.keySet() }
        router.get("/authorize") { request, _ in self.authorize(FormFields(parsing: request.uri.query ?? "").firstValues) }
        router.post("/token") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            return try await self.token(FormFields(parsing: String(buffer: body)).firstValues)
        }
        router.get("/userinfo") { request, _ in self.userInfo(authorization: request.headers[.authorization]) }
        router.post("/revoke") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let token = FormFields(parsing: String(buffer: body)).firstValues["token"] ?? ""
            self.state.withLock { state in
                state.counters.revocations += 1
                state.counters.revoked.append(token)
                state.counters.liveRefreshTokens.remove(token)
                state.accessTokens.remove(token)
            }
            return Response(status: .ok)
        }
        router.get("/logout") { _, _ in Response(status: .ok) }
        return router
    }

    /// Records the path of a request that reached the provider.
    func record(_ path: String) {
        state.withLock { $0.counters.requests.append(path) }
    }

    private func discovery() -> Response {
        let base = issuer.absoluteString
        let behaviour = state.withLock { state in
            state.counters.discovery += 1
            return state.behaviour
        }
        var document: [String: JSONValue] = [
            "issuer": .string(behaviour.discoveryIssuer ?? base),
            "authorization_endpoint": .string(base + "/authorize"),
            "token_endpoint": .string(base + "/token"),
            "jwks_uri": .string(base + "/jwks"),
            "userinfo_endpoint": .string(base + "/userinfo"),
            "revocation_endpoint": .string(base + "/revoke"),
            "end_session_endpoint": .string(base + "/logout"),
            "response_types_supported": .array([.string("code")]),
            "subject_types_supported": .array([.string("public")]),
            "id_token_signing_alg_values_supported": .array(behaviour.advertisedAlgorithms.map(JSONValue.string)),
            "code_challenge_methods_supported": .array([.string("S256")]),
        ]
        document.merge(behaviour.discoveryOverrides) { $1 }
        return Self.json(.object(document))
    }

    private func keySet() -> Response {
        let behaviour = state.withLock { state in
            state.counters.keySet += 1
            return state.behaviour
        }
        if behaviour.keySetFails { return Response(status: .internalServerError) }
        let published = behaviour.publishedKeys.map { published -> JSONValue in
            var jwk = keys.publicJWK(published.key, includesKeyID: published.includesKeyID, keyID: published.keyID)
            jwk["use"] = .string(published.use)
            return .object(jwk)
        }
        return Self.json(.object(["keys": .array(behaviour.rawKeys + published)]))
    }

    private func authorize(_ query: [String: String]) -> Response {
        guard let redirect = query["redirect_uri"], var components = URLComponents(string: redirect) else {
            return Response(status: .badRequest)
        }
        let code = UUID().uuidString
        state.withLock { state in
            state.counters.authorize += 1
            state.counters.authorizeQueries.append(query)
            state.codes[code] = query["nonce"]
        }
        components.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: query["state"])]
        var headers = HTTPFields()
        headers[.location] = components.string ?? redirect
        return Response(status: .found, headers: headers)
    }

    private func token(_ form: [String: String]) async throws -> Response {
        let grant = form["grant_type"] ?? ""
        let accessToken = "hostile-access-" + UUID().uuidString
        let refreshToken = "hostile-refresh-" + UUID().uuidString
        let (behaviour, nonce, known, issuesRefreshToken) = state.withLock { state -> (Behaviour, String??, Bool, Bool) in
            state.counters.tokenRequests[grant, default: 0] += 1
            let behaviour = state.behaviour
            switch grant {
            case "authorization_code":
                let nonce = state.codes.removeValue(forKey: form["code"] ?? "")
                return (behaviour, nonce, nonce != nil, true)
            case "refresh_token":
                // A refresh token is good once when the provider rotates them (django-oauth-toolkit's default).
                let presented = form["refresh_token"] ?? ""
                guard state.counters.liveRefreshTokens.contains(presented) else { return (behaviour, nil, false, false) }
                if behaviour.rotatesRefreshTokens { state.counters.liveRefreshTokens.remove(presented) }
                return (behaviour, nil, true, behaviour.rotatesRefreshTokens)
            default:
                return (behaviour, nil, false, false)
            }
        }
        guard known else { return Self.json(.object(["error": .string("invalid_grant")]), status: .badRequest) }
        let recipe = grant == "authorization_code" ? behaviour.signIn : behaviour.refresh
        var body: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string("Bearer"), "expires_in": .number("3600"),
            "scope": .string(form["scope"] ?? "openid"),
        ]
        if issuesRefreshToken { body["refresh_token"] = .string(refreshToken) }
        if let recipe { body["id_token"] = .string(try await idToken(recipe, nonce: nonce ?? nil)) }
        state.withLock { state in
            state.accessTokens.insert(accessToken)
            if issuesRefreshToken { state.counters.liveRefreshTokens.insert(refreshToken) }
            state.counters.issued += [body["access_token"], body["refresh_token"]].compactMap { $0?.stringValue }
        }
        return Self.json(.object(body))
    }

    private func userInfo(authorization: String?) -> Response {
        let (behaviour, known) = state.withLock { state -> (Behaviour, Bool) in
            state.counters.userInfo += 1
            state.counters.userInfoAuthorizations.append(authorization ?? "")
            let token = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            return (state.behaviour, token.map { state.accessTokens.contains($0) } ?? false)
        }
        guard known else { return Response(status: .unauthorized, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#]) }
        let body = JSONValue.object([
            "sub": .string(behaviour.userInfoSubject ?? behaviour.subject), "email": .string("hostile@example.com"), "name": .string("Hostile"),
        ])
        var response = Self.json(body)
        response.headers[.contentType] = behaviour.userInfoContentType
        return response
    }

    private static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"], body: ResponseBody(byteBuffer: ByteBuffer(string: value.jsonText)))
    }
}
