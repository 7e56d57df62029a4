import Foundation

/// What the app may know, show and log about the current token: never the token itself.
/// ``OAuth2Token/info`` makes one.
public struct TokenInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `token_type` the server reported.
    public var tokenType: String
    /// The granted scopes, when the server reported them.
    public var scopes: [String]?
    /// When the access token expires, if known.
    public var expiresAt: Date?
    /// When the token arrived.
    public var obtainedAt: Date
    /// Whether the session holds a refresh token.
    public var hasRefreshToken: Bool

    public var description: String {
        var parts = ["type: \(tokenType)"]
        if let scopes { parts.append("scopes: \(scopes.joined(separator: " "))") }
        if let expiresAt { parts.append("expires: \(expiresAt.formatted(.iso8601))") }
        parts.append("refresh token: \(hasRefreshToken ? "yes" : "no")")
        return "TokenInfo(\(parts.joined(separator: ", ")))"
    }
}
