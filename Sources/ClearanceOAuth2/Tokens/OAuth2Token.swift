import Clearance
import Foundation

/// A token set as the session holds and stores it: the access token, its type and expiry, the
/// refresh token, and the granted scopes.
///
/// Holds secrets: its `description`, `debugDescription` and reflection show only ``info``.
public struct OAuth2Token: Sendable, Hashable, Codable {
    /// The access token. Secret.
    public var accessToken: String
    /// The `token_type` the server reported (`Bearer` in practice).
    public var tokenType: String
    /// The refresh token, if the server issued one. Secret.
    public var refreshToken: String?
    /// When the access token expires: the moment the response arrived plus `expires_in`.
    /// Never taken from a JWT `exp`. `nil` when the server did not say.
    public var expiresAt: Date?
    /// The granted scopes, when the server reported them.
    public var scopes: [String]?
    /// When the response that carried the access token arrived.
    public var obtainedAt: Date

    public init(accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil, expiresAt: Date? = nil, scopes: [String]? = nil, obtainedAt: Date) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.obtainedAt = obtainedAt
    }

    /// What may be shown and logged about this token: no secrets.
    public var info: TokenInfo {
        TokenInfo(tokenType: tokenType, scopes: scopes, expiresAt: expiresAt, obtainedAt: obtainedAt, hasRefreshToken: refreshToken != nil)
    }

    /// The longest lifetime a token is given (ten years): a longer `expires_in`, or a stored
    /// expiry beyond it, is taken as this.
    public static let longestLifetime: TimeInterval = 10 * 365 * 86_400

    /// The time from `moment` to ``expiresAt``, within ±``longestLifetime``, whatever was
    /// stored (a restored 1e300 must not trap when it becomes a `Duration`); nil without expiry.
    func lifetime(from moment: Date) -> Duration? {
        guard let expiresAt else { return nil }
        let seconds = expiresAt.timeIntervalSince(moment)
        guard !seconds.isNaN else { return .zero }
        return .milliseconds(Int64(min(max(seconds, -Self.longestLifetime), Self.longestLifetime) * 1000))
    }

    /// This token with ``expiresAt`` no further than ``longestLifetime`` either side of `now`
    /// (a restored session may hold anything a file can).
    func clampingExpiry(around now: Date) -> OAuth2Token {
        var token = self
        token.expiresAt = lifetime(from: now).map { now.addingTimeInterval(TokenResponse.timeInterval($0)) }
        return token
    }

    /// The secrets this token holds, for masking them in anything printed.
    var secrets: [String] { [accessToken] + (refreshToken.map { [$0] } ?? []) }
}

extension OAuth2Token: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "OAuth2Token(\(Redactor.mask), \(info))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["accessToken": Redactor.mask, "refreshToken": refreshToken == nil ? "nil" : Redactor.mask, "info": info], displayStyle: .struct)
    }
}
