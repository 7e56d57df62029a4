import Clearance
import ClearanceDevelopment
import ClearanceOAuth2
import ClearanceServer
import ClearanceTestSupport
import ClearanceWire
import Crypto
import Foundation
import Hummingbird

/// An in-process OAuth 2.0 authorization server and protected API on loopback, for the tests:
/// password, client credentials, PodioKit's `app`, refresh (with rotation), authorization code
/// with PKCE, device flow, revocation; scripted failures; counters of what reached it.
final class TestAuthorizationServer: Sendable {
    struct Configuration: Sendable {
        var clientID = "test client/1"
        var clientSecret = "s3cr3t: with+plus/slash="
        var users = ["jane@example.com": "correct horse+battery/staple"]
        var apps = ["app-42": "app-token-0123456789"]
        var expiresIn = 3600
        var rotateRefreshTokens = true
        /// When false, a refresh answers without `refresh_token` (the client must keep its old one).
        var returnRefreshTokenOnRefresh = true
        var clientCredentialsIssueRefreshToken = false
        /// Token requests of these grant types are counted, then answered only once the test
        /// opens ``TestAuthorizationServer/tokenAnswers`` (keeps a renewal in flight while others pile up).
        var heldGrants: Set<String> = []
        var deviceInterval = 5
        var deviceExpiresIn = 600
        /// When true, a refresh's answer waits, after its token was issued, until the test opens
        /// ``TestAuthorizationServer/refreshAnswers`` (a refresh the server already honoured while
        /// the client signs out).
        var holdRefreshAnswers = false
        /// The `token_type` of every token answer.
        var tokenType = "bearer"
    }

    struct State {
        var tokenRequests: [String: Int] = [:]
        var scripted: [String: [ScriptedAnswer]] = [:]
        var accessTokens: Set<String> = []
        var refreshTokens: Set<String> = []
        var revoked: [String] = []
        var revocationRequests = 0
        var revocationScript: [ScriptedAnswer] = []
        var codes: [String: (challenge: String, redirectURI: String)] = [:]
        var deviceCodes: Set<String> = []
        var devicePolls: [ScriptedAnswer] = []
        var apiRequests = 0
        var codeVerifiers: [String] = []
        var counter = 0
        var lastForms: [[String: String]] = []
        var clientAuthentications: [String] = []
        /// Every token, code and device code issued, for searching the logs.
        var issued: [String] = []
    }

    let configuration: Configuration
    let state = Locked(State())
    /// Holds the answers to the ``Configuration/heldGrants`` until the test opens it.
    let tokenAnswers = Gate()
    /// Holds refresh answers (``Configuration/holdRefreshAnswers``) until the test opens it.
    let refreshAnswers = Gate()
    private let runningBox = Locked<RunningServer?>(nil)

    private init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Starts a server on 127.0.0.1, port 0.
    static func start(_ configuration: Configuration = Configuration()) async throws -> TestAuthorizationServer {
        let server = TestAuthorizationServer(configuration: configuration)
        let running = try await RunningServer.start(server.router())
        server.runningBox.withLock { $0 = running }
        return server
    }

    func stop() async {
        tokenAnswers.open()
        refreshAnswers.open()
        await runningBox.withLock { $0 }?.stop()
    }

    var baseURL: URL { runningBox.withLock { $0! }.baseURL }
    var tokenURL: URL { baseURL.appendingPathComponent("oauth/token") }
    var revocationURL: URL { baseURL.appendingPathComponent("oauth/revoke") }
    var authorizationURL: URL { baseURL.appendingPathComponent("oauth/authorize") }
    var deviceAuthorizationURL: URL { baseURL.appendingPathComponent("oauth/device_authorization") }
    var apiURL: URL { baseURL.appendingPathComponent("api/me") }

    // MARK: Test controls

    func script(_ grantType: String, _ answers: ScriptedAnswer...) {
        state.withLock { $0.scripted[grantType, default: []] += answers }
    }
    func scriptRevocation(_ answers: ScriptedAnswer...) {
        state.withLock { $0.revocationScript += answers }
    }
    func scriptDevicePolls(_ answers: ScriptedAnswer...) {
        state.withLock { $0.devicePolls += answers }
    }
    func tokenRequests(_ grantType: String) -> Int { state.withLock { $0.tokenRequests[grantType] ?? 0 } }
    var totalTokenRequests: Int { state.withLock { $0.tokenRequests.values.reduce(0, +) } }
    var apiRequests: Int { state.withLock { $0.apiRequests } }
    var revoked: [String] { state.withLock { $0.revoked } }
    var lastForm: [String: String]? { state.withLock { $0.lastForms.last } }
    var clientAuthentications: [String] { state.withLock { $0.clientAuthentications } }
    /// Makes the API refuse every access token issued so far (as after a server-side revocation).
    func forgetAccessTokens() { state.withLock { $0.accessTokens.removeAll() } }
    func isValidRefreshToken(_ token: String) -> Bool { state.withLock { $0.refreshTokens.contains(token) } }
    /// Every PKCE verifier presented so far.
    var codeVerifiers: [String] { state.withLock { $0.codeVerifiers } }
    /// Every token, code and device code issued so far.
    var issuedSecrets: [String] { state.withLock { $0.issued } }

    // MARK: Routes

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/oauth/token") { request, _ in try await self.token(request) }
        router.post("/oauth/revoke") { request, _ in try await self.revoke(request) }
        router.post("/oauth/device_authorization") { request, _ in try await self.deviceAuthorization(request) }
        router.get("/oauth/authorize") { request, _ in self.authorize(request) }
        router.get("/api/me") { request, _ in self.api(request) }
        return router
    }

    private func token(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        let grant = form["grant_type"] ?? "?"
        let (answer, clientAuth) = state.withLock { state -> (ScriptedAnswer?, String?) in
            state.tokenRequests[grant, default: 0] += 1
            state.lastForms.append(form)
            let auth = authenticateClient(request, form: form)
            if let auth { state.clientAuthentications.append(auth) }
            if var queue = state.scripted[grant], !queue.isEmpty {
                let next = queue.removeFirst()
                state.scripted[grant] = queue
                return (next, auth)
            }
            return (nil, auth)
        }
        if configuration.heldGrants.contains(grant) { await tokenAnswers.wait() }
        if let answer, let response = Self.render(answer) { return response }
        let publicGrant = grant == "authorization_code" || grant == DeviceAuthorizationGrant.grantType
        guard clientAuth != nil || (publicGrant && form["client_id"] == configuration.clientID) else {
            var response = Self.json(["error": "invalid_client"], status: .unauthorized)
            response.headers[.wwwAuthenticate] = #"Basic realm="test""#
            return response
        }
        switch grant {
        case "password":
            guard let user = form["username"], configuration.users[user] == form["password"], form["password"] != nil else {
                return Self.json(["error": "invalid_grant", "error_description": "bad user credentials"], status: .badRequest)
            }
            return Self.json(issue(refresh: true, scope: form["scope"]))
        case "client_credentials":
            return Self.json(issue(refresh: configuration.clientCredentialsIssueRefreshToken, scope: form["scope"]))
        case "app":
            guard let app = form["app_id"], configuration.apps[app] == form["app_token"], form["app_token"] != nil else {
                return Self.json(["error": "invalid_grant"], status: .badRequest)
            }
            return Self.json(issue(refresh: true, scope: nil))
        case "refresh_token":
            let presented = form["refresh_token"] ?? ""
            let known = state.withLock { state -> Bool in
                guard state.refreshTokens.contains(presented) else { return false }
                if configuration.rotateRefreshTokens { state.refreshTokens.remove(presented) }
                return true
            }
            guard known else {
                // Quotes the token back, as careless servers do: the client must not print it.
                return Self.json(["error": "invalid_grant", "error_description": "refresh token \(presented) is unknown or revoked"], status: .badRequest)
            }
            var body = issue(refresh: configuration.rotateRefreshTokens, scope: nil)
            if !configuration.returnRefreshTokenOnRefresh { body["refresh_token"] = nil }
            if configuration.holdRefreshAnswers { await refreshAnswers.wait() }
            return Self.json(body)
        case "authorization_code":
            let code = form["code"] ?? ""
            let entry = state.withLock { $0.codes.removeValue(forKey: code) }
            if let verifier = form["code_verifier"] { state.withLock { $0.codeVerifiers.append(verifier) } }
            guard let entry, entry.redirectURI == form["redirect_uri"],
                let verifier = form["code_verifier"], PKCE.challenge(for: verifier) == entry.challenge
            else {
                return Self.json(["error": "invalid_grant", "error_description": "code, redirect or verifier mismatch"], status: .badRequest)
            }
            return Self.json(issue(refresh: true, scope: form["scope"]))
        case DeviceAuthorizationGrant.grantType:
            let known = state.withLock { $0.deviceCodes.contains(form["device_code"] ?? "") }
            guard known else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
            let poll = state.withLock { state -> ScriptedAnswer in
                state.devicePolls.isEmpty ? .normal : state.devicePolls.removeFirst()
            }
            if let response = Self.render(poll) { return response }
            return Self.json(issue(refresh: true, scope: nil))
        default:
            return Self.json(["error": "unsupported_grant_type"], status: .badRequest)
        }
    }

    private func revoke(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        let (answer, authenticated) = state.withLock { state -> (ScriptedAnswer?, Bool) in
            state.revocationRequests += 1
            let authenticated = authenticateClient(request, form: form) != nil
            return (state.revocationScript.isEmpty ? nil : state.revocationScript.removeFirst(), authenticated)
        }
        if let answer, let response = Self.render(answer) { return response }
        guard authenticated else { return Self.json(["error": "invalid_client"], status: .unauthorized) }
        let token = form["token"] ?? ""
        state.withLock { state in
            state.revoked.append(token)
            state.refreshTokens.remove(token)
            state.accessTokens.remove(token)
        }
        return Response(status: .ok)
    }

    private func deviceAuthorization(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        guard authenticateClient(request, form: form) != nil || form["client_id"] == configuration.clientID else {
            return Self.json(["error": "invalid_client"], status: .unauthorized)
        }
        let deviceCode = "dc-" + Self.randomHex()
        state.withLock { state in
            state.deviceCodes.insert(deviceCode)
            state.issued.append(deviceCode)
        }
        return Self.json([
            "device_code": deviceCode, "user_code": "WDJB-MJHT",
            "verification_uri": baseURL.appendingPathComponent("device").absoluteString,
            "expires_in": configuration.deviceExpiresIn, "interval": configuration.deviceInterval,
        ])
    }

    private func authorize(_ request: Request) -> Response {
        let query = request.uri.queryParameters
        guard query.get("response_type") == "code", query.get("client_id") == configuration.clientID,
            let redirect = query.get("redirect_uri"), let state = query.get("state"),
            let challenge = query.get("code_challenge"), query.get("code_challenge_method") == "S256"
        else {
            return Response(status: .badRequest)
        }
        let code = "code-" + Self.randomHex()
        self.state.withLock { state in
            state.codes[code] = (challenge, redirect)
            state.issued.append(code)
        }
        var location = URLComponents(string: redirect)!
        location.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
        return Response(status: .found, headers: [.location: location.string!])
    }

    private func api(_ request: Request) -> Response {
        let header = request.headers[.authorization] ?? ""
        let parts = header.split(separator: " ", maxSplits: 1)
        let valid = state.withLock { state -> Bool in
            state.apiRequests += 1
            return parts.count == 2 && state.accessTokens.contains(String(parts[1]))
        }
        guard valid else {
            var response = Self.json(["error": "invalid_token"], status: .unauthorized)
            response.headers[.wwwAuthenticate] = #"Bearer realm="test", error="invalid_token""#
            return response
        }
        return Self.json(["scheme": String(parts[0]), "ok": true])
    }

    // MARK: Helpers

    /// Returns how the client authenticated ("basic" or "post"), or nil when it did not.
    private func authenticateClient(_ request: Request, form: [String: String]) -> String? {
        if let header = request.headers[.authorization], header.hasPrefix("Basic ") {
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
                let colon = decoded.firstIndex(of: ":")
            else { return nil }
            let id = FormFields(parsing: "x=" + decoded[..<colon]).first("x")
            let secret = FormFields(parsing: "x=" + decoded[decoded.index(after: colon)...]).first("x")
            return id == configuration.clientID && secret == configuration.clientSecret ? "basic" : nil
        }
        if form["client_id"] == configuration.clientID, form["client_secret"] == configuration.clientSecret {
            return "post"
        }
        return nil
    }

    private func issue(refresh: Bool, scope: String?) -> [String: Any] {
        let (access, refreshToken) = state.withLock { state -> (String, String?) in
            state.counter += 1
            let access = "at-\(state.counter)-\(Self.randomHex())"
            state.accessTokens.insert(access)
            state.issued.append(access)
            var refreshToken: String?
            if refresh {
                refreshToken = "rt-\(state.counter)-\(Self.randomHex())"
                state.refreshTokens.insert(refreshToken!)
                state.issued.append(refreshToken!)
            }
            return (access, refreshToken)
        }
        var body: [String: Any] = ["access_token": access, "token_type": configuration.tokenType, "expires_in": configuration.expiresIn]
        if let refreshToken { body["refresh_token"] = refreshToken }
        if let scope { body["scope"] = scope }
        return body
    }

    static func render(_ answer: ScriptedAnswer) -> Response? {
        switch answer {
        case .normal:
            return nil
        case .status(let code, let body, let retryAfter):
            var headers: HTTPFields = [:]
            if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
            return Response(status: .init(code: code), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(body.utf8))))
        case .oauthError(let code, let status, let description):
            var object: [String: Any] = ["error": code]
            if let description { object["error_description"] = description }
            return json(object, status: .init(code: status))
        }
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(data))))
    }

    static func form(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: 1 << 20)
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        var result: [String: String] = [:]
        for field in FormFields(parsing: text).fields { result[field.name] = field.value }
        return result
    }

    static func randomHex() -> String {
        SymmetricKey(size: .bits128).withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }
}
