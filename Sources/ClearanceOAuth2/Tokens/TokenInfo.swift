import Foundation

/// What the app may know, show and log about the current token: never the token itself.
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

    public init(tokenType: String, scopes: [String]?, expiresAt: Date?, obtainedAt: Date, hasRefreshToken: Bool) {
        self.tokenType = tokenType
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.obtainedAt = obtainedAt
        self.hasRefreshToken = hasRefreshToken
    }

    public var description: String {
        var parts = ["type: \(tokenType)"]
        if let scopes { parts.append("scopes: \(scopes.joined(separator: " "))") }
        if let expiresAt { parts.append("expires: \(expiresAt.formatted(.iso8601))") }
        parts.append("refresh token: \(hasRefreshToken ? "yes" : "no")")
        return "TokenInfo(\(parts.joined(separator: ", ")))"
    }
}
