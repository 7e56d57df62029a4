import Clearance
import Foundation
import HTTPTypes

/// A successful token endpoint response (RFC 6749 §5.1), parsed strictly where it matters.
///
/// - Any `error` member makes the response an error, whatever the HTTP status (some servers
///   answer errors with 200).
/// - `expires_in` may be a number or a numeric string; the expiry is computed from the moment
///   the response arrived, never from a JWT `exp`.
/// - A missing `token_type` is taken as `Bearer`; one that is neither `Bearer` (compared without
///   case, RFC 6749 §7.1) nor the scheme the token will be sent with is an error: a `mac` or
///   `DPoP` token sent as a bearer would fail, or worse.
/// - An empty or missing `access_token` is an error.
/// - An `id_token` (OpenID Connect) is kept as it came, unverified: the session hands it to its
///   ``IdentityVerifier`` before the token set is used or stored.
public struct TokenResponse: Sendable {
    /// The access token. Secret.
    public let accessToken: String
    /// The `token_type`.
    public let tokenType: String
    /// The lifetime the server gave, if any.
    public let expiresIn: Duration?
    /// The refresh token, if one was issued. Secret.
    public let refreshToken: String?
    /// The granted scopes, if reported.
    public let scopes: [String]?
    /// The OpenID Connect ID token (a JWS), as the server sent it: **not verified**. Secret.
    public let idToken: String?
    /// What the authorization request that led to this response asked for (the OpenID Connect
    /// `nonce`, `max_age`), set by the grant that sent it, never read from the server's answer.
    public var authenticationRequest: AuthenticationRequestContext?

    public init(
        accessToken: String, tokenType: String = "Bearer", expiresIn: Duration? = nil, refreshToken: String? = nil, scopes: [String]? = nil,
        idToken: String? = nil, authenticationRequest: AuthenticationRequestContext? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scopes = scopes
        self.idToken = idToken
        self.authenticationRequest = authenticationRequest
    }

    /// Parses a token endpoint response.
    ///
    /// - Parameters:
    ///   - response: The token endpoint's response head.
    ///   - body: Its body (JSON).
    ///   - secrets: Values of the request that must not appear in any error (masked in `error_description`).
    ///   - scheme: The `Authorization` scheme the token will be sent with; `token_type` must be
    ///     `Bearer` (any case) or this.
    /// - Throws: ``OAuth2Error/server(_:)`` for any `error` member, ``OAuth2Error/serverUnavailable(_:)``
    ///   for a 5xx without one, ``OAuth2Error/badResponse(_:reason:)`` for anything else unusable.
    public static func parse(_ response: HTTPResponse, body: Data, secrets: [String] = [], scheme: String = "Bearer") throws(OAuth2Error) -> TokenResponse {
        let answer = HTTPErrorResponse(response, body: body, masking: secrets, keepsBody: false)
        let object = try OAuth2ResponseBody.object(response, body: body, secrets: secrets)
        guard let object else {
            throw .badResponse(answer, reason: "the body is not a JSON object")
        }
        guard let accessToken = object["access_token"] as? String, !accessToken.isEmpty else {
            throw .badResponse(answer, reason: "the response has no access_token")
        }
        guard accessToken.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .badResponse(answer, reason: "the access_token contains characters that cannot go in a header")
        }
        let tokenType = (object["token_type"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "Bearer"
        guard tokenType.lowercased() == "bearer" || tokenType.lowercased() == scheme.lowercased() else {
            throw .badResponse(answer, reason: "the token_type '\(tokenType.prefix(40))' is neither Bearer nor the configured scheme '\(scheme)' (RFC 6749 §7.1); the token was not used")
        }
        let refreshToken = (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let scopes = (object["scope"] as? String).map { $0.split(separator: " ").map(String.init) }
        let idToken: String?
        switch object["id_token"] {
        case nil, is NSNull:
            idToken = nil
        case let text as String where !text.isEmpty:
            idToken = text
        default:
            throw .badResponse(answer, reason: "the id_token is not a non-empty string")
        }
        return TokenResponse(
            accessToken: accessToken, tokenType: tokenType, expiresIn: lifetime(object["expires_in"]),
            refreshToken: refreshToken, scopes: scopes, idToken: idToken)
    }

    /// The token set this response gives, arriving at `receivedAt`.
    ///
    /// - Parameters:
    ///   - receivedAt: When the response arrived; `expires_in` counts from it.
    ///   - previousRefreshToken: The refresh token to keep when the response carries none
    ///     (RFC 6749 §6: the server may or may not rotate it).
    public func token(receivedAt: Date, previousRefreshToken: String? = nil) -> OAuth2Token {
        OAuth2Token(
            accessToken: accessToken, tokenType: tokenType, refreshToken: refreshToken ?? previousRefreshToken,
            expiresAt: expiresIn.map { receivedAt.addingTimeInterval(min(max(0, Self.timeInterval($0)), OAuth2Token.longestLifetime)) },
            scopes: scopes, obtainedAt: receivedAt)
    }

    static func lifetime(_ value: Any?) -> Duration? {
        let seconds: Double?
        switch value {
        case let number as Int:
            seconds = Double(number)
        case let number as Double:
            seconds = number
        case let text as String:
            seconds = Double(text.trimmingCharacters(in: .whitespaces))
        default:
            seconds = nil
        }
        guard let seconds, seconds.isFinite else { return nil }
        return .milliseconds(Int64(max(0, min(seconds, OAuth2Token.longestLifetime)) * 1000))
    }

    static func timeInterval(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension TokenResponse: SecretRedacting {
    public var description: String {
        "TokenResponse(type: \(tokenType), expiresIn: \(expiresIn.map { "\($0)" } ?? "nil"), refresh token: \(refreshToken == nil ? "no" : "yes"), ID token: \(idToken == nil ? "no" : "yes"))"
    }
}
