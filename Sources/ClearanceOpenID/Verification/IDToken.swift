import ClearanceOAuth2
import ClearanceWire
import Foundation

/// An ID token whose signature and claims ``IDTokenVerifier`` verified: its claims, never the
/// token itself.
public struct IDToken: Sendable, Hashable {
    /// Every claim of the payload, as JSON values (numbers keep their text).
    public let claims: [String: JSONValue]

    /// Wraps claims that were verified.
    init(claims: [String: JSONValue]) {
        self.claims = claims
    }

    /// `sub`: who signed in, unique at the issuer (1 to 255 ASCII characters).
    public var subject: String { claims["sub"]?.stringValue ?? "" }
    /// `iss`: the provider.
    public var issuer: String { claims["iss"]?.stringValue ?? "" }
    /// `aud`: the clients the token is for (one of them this client).
    public var audience: [String] { Self.audience(claims["aud"]) }
    /// `azp`: the client the token was issued to, when named.
    public var authorizedParty: String? { claims["azp"]?.stringValue }
    /// `exp`.
    public var expiresAt: Date { claims["exp"]?.numericDate ?? .distantPast }
    /// `iat`.
    public var issuedAt: Date { claims["iat"]?.numericDate ?? .distantPast }
    /// `auth_time`: when the user authenticated, when given.
    public var authenticatedAt: Date? { claims["auth_time"]?.numericDate }
    /// `nonce`, when given.
    public var nonce: String? { claims["nonce"]?.stringValue }
    /// `email`, when given.
    public var email: String? { claims["email"]?.stringValue }
    /// `name`, when given.
    public var name: String? { claims["name"]?.stringValue }

    /// `aud` as a list: one string, or an array of strings.
    static func audience(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let one)?: [one]
        case .array(let many)?: many.compactMap(\.stringValue)
        default: []
        }
    }
}

extension IDToken: CustomStringConvertible {
    public var description: String { "IDToken(subject: \(subject), issuer: \(issuer), expires: \(expiresAt.formatted(.iso8601)))" }
}
