import Clearance
import ClearanceServer
import ClearanceSigning
import ClearanceWire
import Crypto
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HTTPTypes
import Hummingbird

/// Pugpig-compatible subscription endpoints and protected content for development and tests
/// (what `clearance serve` offers): `/pugpig/sign_in`, `/pugpig/renew_token`,
/// `/pugpig/verify_subscription`, `/pugpig/edition_credentials`, `/pugpig/sign_out` (GET with a
/// query string or POST with a form body; XML answers, never cached), and
/// `/content/{product}/…`, which checks edition credentials.
///
/// Users are ``DevelopmentUser``s: the user name is the user's id and the password its token;
/// what they may read is ``DevelopmentUser/entitlements`` (all issues, a list, lapsed,
/// suspended; none given means lapsed). Tokens are signed (no storage) and become `stale`
/// after ``DevelopmentPugpigSettings/tokenLifetime``. Edition passwords follow
/// ``DevelopmentPugpigSettings/passwordScheme``; every secret is compared in constant time.
///
/// For development only: it is not a production subscription service.
public struct DevelopmentPugpigServer: Sendable {
    /// The edge-token header content requests must echo (when ``DevelopmentPugpigSettings/edgeHeader``).
    public static let edgeHeader = HTTPField.Name("X-Clearance-Edge")!

    /// The users.
    public let users: DevelopmentUserDirectory
    /// The settings.
    public let settings: DevelopmentPugpigSettings
    /// What `/content` serves.
    public let library: DevelopmentContentLibrary
    /// What was answered.
    public let stats = DevelopmentPugpigStats()
    private let secret: SymmetricKey
    private let signedOut = Locked(SignedOutTokens())
    private let now: @Sendable () -> Date

    /// Endpoints for `users` under `settings` (a secret is generated when the settings have none).
    public init(users: [DevelopmentUser], settings: DevelopmentPugpigSettings = DevelopmentPugpigSettings(), library: DevelopmentContentLibrary? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.users = DevelopmentUserDirectory(users: users)
        self.settings = settings
        self.library = library ?? DevelopmentContentLibrary(directory: settings.contentDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) })
        self.secret = SymmetricKey(data: Data((settings.secret ?? HubConfiguration.randomSecret()).utf8))
        self.now = now
    }

    /// A router with only these routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        addRoutes(to: router)
        return router
    }

    /// Adds the `/pugpig/…` and `/content/{product}/**` routes to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        for (path, handler) in [
            ("sign_in", signIn), ("renew_token", renew), ("verify_subscription", verify),
            ("edition_credentials", credentials), ("sign_out", signOut),
        ] as [(String, @Sendable ([String: String]) -> String)] {
            router.get("/pugpig/\(path)") { request, _ in
                self.answer(path, handler(Self.fields(query: request.uri.query, form: nil)))
            }
            router.post("/pugpig/\(path)") { request, _ in
                let body = try await request.body.collect(upTo: 64 * 1024)
                return self.answer(path, handler(Self.fields(query: request.uri.query, form: String(buffer: body))))
            }
        }
        router.get("/content/:product/**") { request, context in
            try await self.content(request, product: context.parameters.get("product") ?? "", path: context.parameters.getCatchAll())
        }
    }

    /// The edition credentials a request for `product` by `userID` needs (what `edition_credentials` answers).
    public func editionCredentials(product: String, userID: String) -> (password: String, edge: String?) {
        let password = settings.passwordScheme.password(product: product, userID: userID, expiry: now().addingTimeInterval(settings.passwordLifetime), secret: secret)
        return (password, settings.edgeHeader ? edgeToken(product: product, userID: userID) : nil)
    }

    // MARK: - Endpoints

    private func signIn(_ fields: [String: String]) -> String {
        guard let username = fields["username"], let password = fields["password"],
              let user = users.user(forToken: password), ConstantTime.equals(user.id, username)
        else { return PugpigXML.error(status: "notrecognised", message: "Invalid credentials") }
        let token = DevelopmentPugpigToken(userID: user.id, issuedAt: now()).text(secret: secret)
        let global = settings.globalAuthPassword ? Hex.string(HMAC<SHA256>.authenticationCode(for: Data("global:\(user.id)".utf8), using: secret)) : nil
        return PugpigXML.token(token, globalAuthPassword: global)
    }

    private func renew(_ fields: [String: String]) -> String {
        guard let (token, _) = session(fields), token.age(at: now()) <= settings.renewalWindow else {
            return PugpigXML.error(status: "notrecognised", message: "The session has ended; sign in again")
        }
        return PugpigXML.token(DevelopmentPugpigToken(userID: token.userID, issuedAt: now()).text(secret: secret), globalAuthPassword: nil)
    }

    private func verify(_ fields: [String: String]) -> String {
        guard let (token, user) = session(fields) else {
            return PugpigXML.subscription(state: "unknown", message: "Unknown token", categories: [], issues: nil)
        }
        if token.age(at: now()) > settings.tokenLifetime {
            return PugpigXML.subscription(state: "stale", message: "The token has expired", categories: [], issues: nil)
        }
        let tier = [("http://schema.pugpig.com/attribute/user_id", user.id)]
        switch user.entitlements ?? .lapsed {
        case .all: return PugpigXML.subscription(state: "active", message: "Your subscription is active", categories: tier + [("http://schema.pugpig.com/attribute/tier", "all-access")], issues: nil)
        case .issues(let ids): return PugpigXML.subscription(state: "active", message: "You may read \(ids.count) issue\(ids.count == 1 ? "" : "s")", categories: tier, issues: ids)
        case .lapsed: return PugpigXML.subscription(state: "inactive", message: "Your subscription has lapsed", categories: tier, issues: nil)
        case .suspended: return PugpigXML.subscription(state: "suspended", message: "Your account is suspended", categories: tier, issues: nil)
        }
    }

    private func credentials(_ fields: [String: String]) -> String {
        // A stale token still gets credentials while it can be renewed: only verify says stale.
        guard let (token, user) = session(fields), token.age(at: now()) <= settings.renewalWindow else {
            return PugpigXML.credentialsError(status: nil, message: "Unknown token")
        }
        guard let product = fields["product_id"], !product.isEmpty else {
            return PugpigXML.credentialsError(status: nil, message: "No product_id")
        }
        guard (user.entitlements ?? .lapsed).grants(product) else {
            return PugpigXML.credentialsError(status: "notentitled", message: "\(product) is not part of your subscription")
        }
        let (password, edge) = editionCredentials(product: product, userID: user.id)
        return PugpigXML.credentials(userID: user.id, password: password, headers: edge.map { [(Self.edgeHeader.canonicalName, $0)] } ?? [])
    }

    /// Remembers a token this server issued as signed out until it could not be renewed anyway
    /// (others are answered the same and remembered nowhere: a flood of made-up tokens costs
    /// nothing).
    private func signOut(_ fields: [String: String]) -> String {
        if let text = fields["token"], let token = DevelopmentPugpigToken(verifying: text, secret: secret) {
            let now = now()
            let renewalWindow = settings.renewalWindow
            signedOut.withLock { $0.insert(text, token, renewalWindow: renewalWindow, now: now) }
        }
        return PugpigXML.signedOut()
    }

    /// The token and its user, when the token verifies, was not signed out, and names a known user.
    private func session(_ fields: [String: String]) -> (DevelopmentPugpigToken, DevelopmentUser)? {
        let now = now()
        guard let text = fields["token"], let token = DevelopmentPugpigToken(verifying: text, secret: secret),
              !signedOut.withLock({ $0.contains(text, token, now: now) }),
              let user = users.users.first(where: { $0.id == token.userID })
        else { return nil }
        return (token, user)
    }

    // MARK: - Content

    private func content(_ request: Request, product: String, path: [Substring]) async throws -> Response {
        let identifier = BasicCredentialsIdentifier<String> { userID, password in
            self.settings.passwordScheme.verify(password, product: product, userID: userID, now: self.now(), secret: self.secret) ? userID : nil
        }
        let userID = try? await identifier.identify(request)
        guard let userID, !settings.edgeHeader || edgeMatches(request.headers[Self.edgeHeader], product: product, userID: userID) else {
            stats.record("content_refused")
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = #"Basic realm="clearance content", charset="UTF-8""#
            return Response(status: .unauthorized, headers: headers)
        }
        guard let file = library.file(product: product, path: path) else {
            return Response(status: .notFound)
        }
        stats.record("content")
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.cacheControl] = "private, no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file))
    }

    private func edgeToken(product: String, userID: String) -> String {
        Hex.string(HMAC<SHA256>.authenticationCode(for: Data("edge:\(product):\(userID)".utf8), using: secret))
    }

    private func edgeMatches(_ value: String?, product: String, userID: String) -> Bool {
        guard let value, let mac = Hex.decodeLowercase(value) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data("edge:\(product):\(userID)".utf8), using: secret)
    }

    // MARK: - Wire

    private func answer(_ endpoint: String, _ xml: String) -> Response {
        stats.record(endpoint)
        var headers = HTTPFields()
        headers[.contentType] = "text/xml; charset=utf-8"
        headers[.cacheControl] = "no-store, no-cache, must-revalidate"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }

    private static func fields(query: String?, form: String?) -> [String: String] {
        var fields = FormFields(parsing: query ?? "").firstValues
        if let form { fields.merge(FormFields(parsing: form).firstValues) { _, body in body } }
        return fields
    }
}
