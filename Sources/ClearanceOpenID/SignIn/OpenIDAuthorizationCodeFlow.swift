import Clearance
import ClearanceOAuth2
import ClearanceWire
import Crypto
import Foundation

/// Sign-in with OpenID Connect's authorization code flow (Core §3.1) as one `OAuth2Grant`:
/// `AuthorizationCodeFlow` (PKCE, `state`, the redirect) with `openid` among the scopes and a
/// fresh random `nonce` for every attempt, plus `prompt`, `max_age` and `login_hint` when asked.
///
/// The nonce (and `max_age`) travel with the token response
/// (`TokenResponse.authenticationRequest`) to the session's ``IDTokenVerifier``, which
/// refuses an ID token that does not echo them: the session then stores nothing.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start()
/// try await session.signIn(with: OpenIDAuthorizationCodeFlow(receiver: listener) { url in open(url) })
/// ```
public struct OpenIDAuthorizationCodeFlow: OAuth2Grant {
    /// The code flow it runs: the receiver, the scopes besides `openid` (`profile`, `email`,
    /// `offline_access`, …; `nil` uses the session's), other authorization request parameters
    /// (`ui_locales`, `acr_values`, …), the timeout and how the URL is shown.
    public var codeFlow: AuthorizationCodeFlow
    /// `prompt` (`login`, `consent`, `select_account`, `none`), when the app asks for one.
    public var prompt: String?
    /// `max_age`: the longest time since the user last authenticated; the ID token must then
    /// carry an `auth_time` that recent.
    public var maxAge: Duration?
    /// `login_hint`: who the app expects to sign in (an email address, say).
    public var loginHint: String?

    /// - Parameters: as `AuthorizationCodeFlow`'s, and OpenID Connect's `prompt`, `max_age`
    ///   and `login_hint`.
    public init(
        receiver: any AuthorizationRedirectReceiver,
        scopes: [String]? = nil,
        prompt: String? = nil,
        maxAge: Duration? = nil,
        loginHint: String? = nil,
        additionalParameters: [(name: String, value: String)] = [],
        timeout: Duration = .seconds(300),
        openURL: @escaping @Sendable (URL) async throws -> Void
    ) {
        self.codeFlow = AuthorizationCodeFlow(
            receiver: receiver, scopes: scopes, additionalParameters: additionalParameters, timeout: timeout, openURL: openURL)
        self.prompt = prompt
        self.maxAge = maxAge
        self.loginHint = loginHint
    }

    public var grantName: String { "authorization_code" }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        let nonce = Self.randomNonce()
        var flow = codeFlow
        flow.scopes = Self.withOpenID(codeFlow.scopes ?? server.scopes)
        flow.additionalParameters.removeAll { ["nonce", "prompt", "max_age", "login_hint"].contains($0.name) }
        flow.additionalParameters.append(("nonce", nonce))
        if let prompt { flow.additionalParameters.append(("prompt", prompt)) }
        if let maxAge { flow.additionalParameters.append(("max_age", String(maxAge.components.seconds))) }
        if let loginHint { flow.additionalParameters.append(("login_hint", loginHint)) }
        var response = try await flow.requestToken(from: server)
        response.authenticationRequest = AuthenticationRequestContext(nonce: nonce, maxAge: maxAge)
        return response
    }

    /// `scopes` with `openid` first, once.
    static func withOpenID(_ scopes: [String]) -> [String] {
        ["openid"] + scopes.filter { $0 != "openid" }
    }

    /// 32 random bytes, base64url: 43 characters.
    static func randomNonce() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Data($0)) }
    }
}
