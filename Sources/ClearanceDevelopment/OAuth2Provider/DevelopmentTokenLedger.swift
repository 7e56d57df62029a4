import Foundation

/// What the ``DevelopmentOAuth2Provider`` has issued and revoked, and what reached it.
public actor DevelopmentTokenLedger {
    struct RefreshRecord: Sendable {
        var subject: String
        var clientID: String
        var scope: String?
        var expiresAt: Date
        /// When the user signed in (for the `auth_time` of ID tokens issued at refresh).
        var authTime: Date? = nil
    }

    /// An authorization code waiting for its exchange.
    struct CodeRecord: Sendable {
        var subject: String
        var clientID: String
        var redirectURI: String
        var codeChallenge: String
        var scope: String?
        var nonce: String?
        var authTime: Date
        var expiresAt: Date
    }

    private var refreshTokens: [String: RefreshRecord] = [:]
    private var codes: [String: CodeRecord] = [:]
    private var revokedAccessTokenIDs: Set<String> = []
    /// Token requests per grant type.
    public private(set) var tokenRequests: [String: Int] = [:]
    /// Revocation requests so far.
    public private(set) var revocations = 0
    /// Authorization requests that issued a code.
    public private(set) var authorizations = 0
    /// UserInfo requests so far.
    public private(set) var userInfoRequests = 0
    /// End-session requests the provider accepted.
    public private(set) var endSessions = 0
    /// Key set requests so far.
    public private(set) var keySetRequests = 0

    public init() {}

    func countTokenRequest(_ grantType: String) { tokenRequests[grantType, default: 0] += 1 }
    func countRevocation() { revocations += 1 }
    func countUserInfo() { userInfoRequests += 1 }
    func countEndSession() { endSessions += 1 }
    func countKeySetRequest() { keySetRequests += 1 }

    /// Keeps a new code (at most 1,000 waiting: the oldest give way).
    func store(code: String, _ record: CodeRecord) {
        authorizations += 1
        if codes.count >= 1_000, let oldest = codes.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key { codes[oldest] = nil }
        codes[code] = record
    }

    /// The record of a live code, removed: a code is used once.
    func takeCode(_ code: String, now: Date) -> CodeRecord? {
        guard let record = codes.removeValue(forKey: code), record.expiresAt > now else { return nil }
        return record
    }

    func store(refreshToken: String, _ record: RefreshRecord) { refreshTokens[refreshToken] = record }

    /// The record of a live refresh token issued to `clientID`; removes it when `consume`.
    func refreshRecord(_ token: String, clientID: String, now: Date, consume: Bool) -> RefreshRecord? {
        guard let record = refreshTokens[token], record.clientID == clientID else { return nil }
        guard record.expiresAt > now else {
            refreshTokens[token] = nil
            return nil
        }
        if consume { refreshTokens[token] = nil }
        return record
    }

    /// Revokes a refresh token (true when it was live).
    func revokeRefreshToken(_ token: String, clientID: String) -> Bool {
        guard refreshTokens[token]?.clientID == clientID else { return false }
        refreshTokens[token] = nil
        return true
    }

    func revokeAccessToken(id: String) { revokedAccessTokenIDs.insert(id) }
    func isRevoked(accessTokenID id: String) -> Bool { revokedAccessTokenIDs.contains(id) }

    /// How many refresh tokens are live.
    public var liveRefreshTokens: Int { refreshTokens.count }
}
