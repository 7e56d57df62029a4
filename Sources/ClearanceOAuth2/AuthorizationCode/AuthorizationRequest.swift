import Clearance
import ClearanceWire
import Crypto
import Foundation

/// One authorization code request with PKCE (RFC 6749 §4.1.1, RFC 7636 §4.3): the URL to open
/// in the browser, and the `state` and verifier that the answer must match.
///
/// Make a new one for every sign-in attempt. Its `description` shows neither the state nor the verifier.
public struct AuthorizationRequest: Sendable, SecretRedacting {
    /// The URL to open: the authorization endpoint with `response_type=code`, `client_id`,
    /// `redirect_uri`, `scope`, `state`, `code_challenge` and `code_challenge_method=S256`.
    public let url: URL
    /// The redirect URI the answer must come back to.
    public let redirectURI: URL
    /// The anti-forgery `state` (RFC 6749 §10.12): 32 random bytes, base64url. Secret until used.
    public let state: String
    /// The PKCE pair.
    public let pkce: PKCE

    /// - Parameters:
    ///   - authorizationEndpoint: The authorization endpoint.
    ///   - clientID: The client id.
    ///   - redirectURI: The redirect URI (a loopback one for desktop and command-line apps, RFC 8252 §7.3).
    ///   - scopes: The scopes to ask for.
    ///   - state: The state; random by default.
    ///   - pkce: The PKCE pair; fresh by default.
    ///   - additionalParameters: Extra query parameters (`prompt`, `login_hint`, …).
    public init(
        authorizationEndpoint: URL, clientID: String, redirectURI: URL, scopes: [String] = [],
        state: String? = nil, pkce: PKCE = PKCE(), additionalParameters: [(name: String, value: String)] = []
    ) throws(OAuth2Error) {
        guard var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false), components.host != nil else {
            throw .misconfigured(reason: "the authorization endpoint is not an absolute URL")
        }
        let state = state ?? Self.randomState()
        var parameters: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI.absoluteString),
        ]
        if !scopes.isEmpty { parameters.append(("scope", scopes.joined(separator: " "))) }
        parameters += [("state", state), ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method)]
        parameters += additionalParameters
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? [] : [$0] } ?? []
        components.percentEncodedQuery = (existing + [FormFields.encode(parameters, style: .rfc3986)]).joined(separator: "&")
        guard let url = components.url else {
            throw .misconfigured(reason: "the authorization URL cannot be built")
        }
        self.url = url
        self.redirectURI = redirectURI
        self.state = state
        self.pkce = pkce
    }

    /// Checks the redirect the browser came back with and returns the code exchange.
    ///
    /// `state` is checked first (in constant time): an answer with another state is not ours,
    /// whether it carries a code or an error.
    /// - Throws: ``OAuth2Error/stateMismatch``, ``OAuth2Error/server(_:)`` for an `error` answer
    ///   (e.g. `access_denied`), ``OAuth2Error/invalidRedirect(reason:)`` without a code.
    public func grant(forRedirect redirect: URL) throws(OAuth2Error) -> AuthorizationCodeGrant {
        guard let components = URLComponents(url: redirect, resolvingAgainstBaseURL: false) else {
            throw .invalidRedirect(reason: "the redirect is not a URL")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] where query[item.name] == nil {
            query[item.name] = item.value ?? ""
        }
        guard let returned = query["state"], ConstantTime.equals(returned, state) else {
            throw .stateMismatch
        }
        if let error = query["error"] {
            throw .server(OAuth2ServerError(
                code: error, description: query["error_description"], uri: query["error_uri"], httpStatus: 0,
                secrets: [state, pkce.verifier]))
        }
        guard let code = query["code"], !code.isEmpty else {
            throw .invalidRedirect(reason: "the redirect carries neither a code nor an error")
        }
        return AuthorizationCodeGrant(code: code, redirectURI: redirectURI, codeVerifier: pkce.verifier)
    }

    public var description: String {
        "AuthorizationRequest(redirectURI: \(redirectURI), state: \(Redactor.mask), \(pkce))"
    }

    /// 32 random bytes, base64url: 43 characters.
    static func randomState() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Data($0)) }
    }
}
