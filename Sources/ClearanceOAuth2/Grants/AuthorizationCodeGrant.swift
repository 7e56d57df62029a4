import Clearance
import Foundation

/// The code exchange of the authorization code grant (RFC 6749 §4.1.3) with the PKCE verifier
/// (RFC 7636 §4.5). ``AuthorizationCodeFlow`` produces one after checking `state`.
/// Its `description` shows neither the code nor the verifier.
public struct AuthorizationCodeGrant: OAuth2Grant, SecretRedacting {
    /// The authorization code. Secret.
    public var code: String
    /// The redirect URI sent in the authorization request (it must match).
    public var redirectURI: URL
    /// The PKCE verifier. Secret.
    public var codeVerifier: String?

    public init(code: String, redirectURI: URL, codeVerifier: String?) {
        self.code = code
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
    }

    public var grantName: String { "authorization_code" }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        var fields: [(name: String, value: String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI.absoluteString),
        ]
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        return try await server.requestToken(fields)
    }

    public var description: String {
        "AuthorizationCodeGrant(code: \(Redactor.mask), redirectURI: \(redirectURI), verifier: \(codeVerifier == nil ? "none" : Redactor.mask))"
    }
}
