import Clearance
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import Logging

/// A **development** OAuth 2.0 authorization server and OpenID provider, so `clearance demo` and
/// local apps run offline: password, client credentials, PodioKit's `app` grant, the
/// authorization code (PKCE S256) and refresh (with rotation) at `POST /oauth/token`; RFC 7009
/// revocation at `POST /oauth/revoke`; a protected `GET /oauth/me` that checks an access token.
///
/// As an OpenID provider: discovery at `GET /.well-known/openid-configuration`, its key set at
/// `GET /oauth/jwks` (an ES256 key made at start), `GET /oauth/authorize` (no login page: it
/// signs in the `login_hint` user, or the first configured one, and redirects to a loopback
/// redirect URI), ID tokens with the request's `nonce` whenever `openid` is among the scopes,
/// `GET /oauth/userinfo` and the end-session endpoint `GET /oauth/logout`. Its issuer is
/// ``DevelopmentOAuth2ProviderConfiguration/openIDIssuer``, or `http://<Host>` of each request.
///
/// Access tokens are HS256 JWTs signed with jwt-kit; refresh tokens and codes are random and kept
/// in memory. Users, apps and clients come from ``DevelopmentOAuth2ProviderConfiguration``.
///
/// It is not hardened for production (no rate limits, no persistence, secrets in memory as
/// plain strings) and says so in its log when it starts and in every token response header.
public struct DevelopmentOAuth2Provider: Sendable {
    /// The configuration.
    public let configuration: DevelopmentOAuth2ProviderConfiguration
    /// What the provider issued and saw.
    public let ledger = DevelopmentTokenLedger()
    private let keys: JWTKeyCollection
    private let keyID = JWKIdentifier(string: "clearance-development")
    let openIDKeys: DevelopmentOpenIDKeys
    let logger: Logger

    /// - Throws: ``DevelopmentProviderError`` when the signing key is shorter than 32 bytes (HS256
    ///   needs at least that much) or a token lifetime is not more than 0 and at most ten years.
    public init(configuration: DevelopmentOAuth2ProviderConfiguration = .init(), logger: Logger = Logger(label: "clearance.oauth2.development-provider")) async throws {
        guard configuration.signingKey.bitCount >= 256 else {
            throw DevelopmentProviderError.signingKeyTooShort(bits: configuration.signingKey.bitCount)
        }
        let longest = Duration.seconds(10 * 365 * 86_400)
        for (name, lifetime) in [("accessTokenLifetime", configuration.accessTokenLifetime), ("refreshTokenLifetime", configuration.refreshTokenLifetime)]
        where lifetime <= .zero || lifetime > longest {
            throw DevelopmentProviderError.invalidLifetime(name: name)
        }
        self.configuration = configuration
        self.logger = logger
        self.keys = JWTKeyCollection()
        let secret = configuration.signingKey.withUnsafeBytes { Data($0) }
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: keyID)
        self.openIDKeys = await DevelopmentOpenIDKeys()
        logger.warning("DEVELOPMENT OAuth2 provider: for development and demos only, never for production")
    }

    /// A router with the provider's routes: `/oauth/token`, `/oauth/revoke`, `/oauth/me`, and the
    /// OpenID ones (`/.well-known/openid-configuration`, `/oauth/jwks`, `/oauth/authorize`,
    /// `/oauth/userinfo`, `/oauth/logout`).
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        addRoutes(to: router)
        return router
    }

    /// Adds the provider's routes to an existing router (e.g. the hub's in `clearance serve`).
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("/oauth/token") { request, _ in
            await token(try await Self.form(request), authorization: request.headers[.authorization], issuer: issuer(of: request))
        }
        router.post("/oauth/revoke") { request, _ in
            await revoke(try await Self.form(request), authorization: request.headers[.authorization])
        }
        router.get("/oauth/me") { request, _ in
            await me(authorization: request.headers[.authorization])
        }
        addOpenIDRoutes(to: router)
    }

    /// Verifies an access token the provider issued (signature, expiry, revocation).
    public func verify(accessToken: String) async throws -> DevelopmentAccessTokenClaims {
        let claims = try await keys.verify(accessToken, as: DevelopmentAccessTokenClaims.self)
        if await ledger.isRevoked(accessTokenID: claims.jti.value) {
            throw DevelopmentProviderError.revoked
        }
        return claims
    }

    // MARK: - Endpoints

    private func token(_ form: [String: String], authorization: String?, issuer: String) async -> Response {
        let grantType = form["grant_type"] ?? ""
        await ledger.countTokenRequest(grantType)
        guard let (clientID, isPublic) = authenticateClient(form, authorization: authorization),
              !isPublic || ["authorization_code", "refresh_token"].contains(grantType)
        else {
            logger.debug("token request with bad client credentials", metadata: ["grant_type": "\(grantType)"])
            return Self.error("invalid_client", status: .unauthorized, challenge: #"Basic realm="clearance-development""#)
        }
        let scope = form["scope"]
        // Kept with every refresh token: a real one is a few words.
        if let scope, scope.utf8.count > 1_024 { return Self.error("invalid_scope", description: "the scope is longer than 1,024 bytes") }
        switch grantType {
        case "authorization_code":
            guard let record = await ledger.takeCode(form["code"] ?? "", now: Date()), record.clientID == clientID,
                  record.redirectURI == form["redirect_uri"],
                  let verifier = form["code_verifier"], ConstantTime.equals(Self.challenge(for: verifier), record.codeChallenge)
            else {
                return Self.error("invalid_grant", description: "the code is unknown, used, expired, or not for this client, redirect URI or verifier")
            }
            let openID = OpenIDGrant(issuer: issuer, nonce: record.nonce, authTime: record.authTime)
            return await issue(subject: record.subject, clientID: clientID, scope: record.scope, withRefreshToken: true, openID: openID)
        case "password":
            guard let username = Self.known(form["username"], secret: form["password"], in: configuration.users) else {
                return Self.error("invalid_grant", description: "the user name or password is wrong")
            }
            return await issue(subject: "user:\(username)", clientID: clientID, scope: scope, withRefreshToken: true)
        case "client_credentials":
            return await issue(subject: "client:\(clientID)", clientID: clientID, scope: scope, withRefreshToken: false)
        case "app":
            guard let appID = Self.known(form["app_id"], secret: form["app_token"], in: configuration.apps) else {
                return Self.error("invalid_grant", description: "the app id or app token is wrong")
            }
            return await issue(subject: "app:\(appID)", clientID: clientID, scope: scope, withRefreshToken: true)
        case "refresh_token":
            guard let presented = form["refresh_token"],
                let record = await ledger.refreshRecord(presented, clientID: clientID, now: Date(), consume: configuration.rotatesRefreshTokens)
            else {
                return Self.error("invalid_grant", description: "the refresh token is unknown, expired or revoked")
            }
            // An ID token at refresh (Core §12.2): the same subject and auth_time, no nonce.
            let openID = record.authTime.map { OpenIDGrant(issuer: issuer, nonce: nil, authTime: $0) }
            return await issue(
                subject: record.subject, clientID: clientID, scope: record.scope,
                withRefreshToken: configuration.rotatesRefreshTokens, openID: openID)
        case "":
            return Self.error("invalid_request", description: "grant_type is missing")
        default:
            return Self.error("unsupported_grant_type")
        }
    }

    private func revoke(_ form: [String: String], authorization: String?) async -> Response {
        await ledger.countRevocation()
        guard let (clientID, _) = authenticateClient(form, authorization: authorization) else {
            return Self.error("invalid_client", status: .unauthorized, challenge: #"Basic realm="clearance-development""#)
        }
        guard let token = form["token"] else { return Self.error("invalid_request", description: "token is missing") }
        // RFC 7009 §2.2: 200 whether or not the token was known.
        if !(await ledger.revokeRefreshToken(token, clientID: clientID)),
            let claims = try? await keys.verify(token, as: DevelopmentAccessTokenClaims.self), claims.clientID == clientID
        {
            await ledger.revokeAccessToken(id: claims.jti.value, expiresAt: claims.exp.value)
        }
        return Response(status: .ok, headers: Self.noStore)
    }

    private func me(authorization: String?) async -> Response {
        let parts = authorization?.split(separator: " ", maxSplits: 1) ?? []
        guard parts.count == 2, ["bearer", "oauth2"].contains(parts[0].lowercased()) else {
            return Self.error("invalid_request", status: .unauthorized, challenge: #"Bearer realm="clearance-development""#)
        }
        do {
            let claims = try await verify(accessToken: String(parts[1]))
            return Self.json(["sub": claims.sub.value, "client_id": claims.clientID, "scope": claims.scope ?? ""])
        } catch {
            return Self.error("invalid_token", status: .unauthorized, challenge: #"Bearer realm="clearance-development", error="invalid_token""#)
        }
    }

    // MARK: - Helpers

    /// What an ID token issued with a token needs: the issuer of the request, the code's nonce,
    /// when the user signed in.
    struct OpenIDGrant {
        var issuer: String
        var nonce: String?
        var authTime: Date
    }

    private func issue(subject: String, clientID: String, scope: String?, withRefreshToken: Bool, openID: OpenIDGrant? = nil) async -> Response {
        let now = Date()
        let lifetime = Self.seconds(configuration.accessTokenLifetime)
        let claims = DevelopmentAccessTokenClaims(
            subject: subject, issuer: configuration.issuer, clientID: clientID, scope: scope,
            issuedAt: now, expiresAt: now.addingTimeInterval(lifetime), id: UUID().uuidString)
        let accessToken: String
        do {
            accessToken = try await keys.sign(claims, kid: keyID)
        } catch {
            logger.error("signing an access token failed")
            return Self.error("server_error", status: .internalServerError)
        }
        var body: [String: Any] = ["access_token": accessToken, "token_type": "Bearer", "expires_in": Int(lifetime)]
        if let scope { body["scope"] = scope }
        // Only when `openid` was asked for (Core §3.1.3.3).
        let openID = Self.scopes(scope).contains("openid") ? openID : nil
        if let openID {
            do {
                body["id_token"] = try await idToken(subject: subject, clientID: clientID, issuedAt: now, lifetime: lifetime, grant: openID)
            } catch {
                logger.error("signing an ID token failed")
                return Self.error("server_error", status: .internalServerError)
            }
        }
        if withRefreshToken {
            let refreshToken = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            await ledger.store(refreshToken: refreshToken, .init(
                subject: subject, clientID: clientID, scope: scope,
                expiresAt: now.addingTimeInterval(Self.seconds(configuration.refreshTokenLifetime)), authTime: openID?.authTime))
            body["refresh_token"] = refreshToken
        }
        logger.debug("issued a token", metadata: ["subject": "\(subject)", "client_id": "\(clientID)", "refresh_token": "\(withRefreshToken)"])
        return Self.json(body)
    }

    /// The client id when the request authenticates a registered client (Basic or body), or
    /// names a public client without any secret; nil otherwise. `isPublic` tells which.
    private func authenticateClient(_ form: [String: String], authorization: String?) -> (id: String, isPublic: Bool)? {
        let presented: (id: String, secret: String)?
        if let basic = OAuth2FormBody.basicCredentials(authorization) {
            presented = basic
        } else if let id = form["client_id"], let secret = form["client_secret"] {
            presented = (id, secret)
        } else if authorization == nil, let id = form["client_id"], configuration.publicClients.contains(id) {
            return (id, true)
        } else {
            presented = nil
        }
        guard let presented, let expected = configuration.clients[presented.id], ConstantTime.equals(expected, presented.secret) else {
            return nil
        }
        return (presented.id, false)
    }

    static func form(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        return OAuth2FormBody.fields(String(decoding: buffer.readableBytesView, as: UTF8.self))
    }

    static let noStore: HTTPFields = [.cacheControl: "no-store", HTTPField.Name("X-Clearance-Provider")!: "development"]

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok, challenge: String? = nil) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = noStore
        headers[.contentType] = "application/json"
        if let challenge { headers[.wwwAuthenticate] = challenge }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ code: String, description: String? = nil, status: HTTPResponse.Status = .badRequest, challenge: String? = nil) -> Response {
        var object: [String: Any] = ["error": code]
        if let description { object["error_description"] = description }
        return json(object, status: status, challenge: challenge)
    }


    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// `name` when it is in `secrets` and `secret` is its secret (compared in constant time).
    private static func known(_ name: String?, secret: String?, in secrets: [String: String]) -> String? {
        guard let name, let secret, let expected = secrets[name], ConstantTime.equals(expected, secret) else { return nil }
        return name
    }
}
