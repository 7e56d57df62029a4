import Foundation

/// What the ``DevelopmentOAuth2Provider`` has issued and revoked, and what reached it.
///
/// Bounded, whatever clients send: request counts are kept per known grant type (any other
/// counts as `unsupported`), and every record has a count limit and an age (codes live a minute,
/// refresh tokens and revocations as long as the token they are for); the oldest records give way
/// first. A flood of unique requests, answered or refused, costs no memory that stays.
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

    /// The grant types counted by name in ``tokenRequests`` (`""`: none given).
    public static let countedGrantTypes: Set<String> = ["authorization_code", "password", "client_credentials", "app", "refresh_token", ""]

    /// How many of each record the ledger keeps at most.
    public struct Limits: Sendable, Equatable {
        /// Authorization codes waiting for their exchange.
        public var codes = 1_000
        /// Live refresh tokens.
        public var refreshTokens = 10_000
        /// Revoked access tokens not yet expired.
        public var revokedAccessTokens = 10_000

        public init() {}
    }

    private let limits: Limits
    private var refreshTokens = ExpiringRecords<String, RefreshRecord>()
    private var codes = ExpiringRecords<String, CodeRecord>()
    private var revokedAccessTokenIDs = ExpiringRecords<String, Void>()
    /// Token requests per grant type (``countedGrantTypes``, or `unsupported` for any other).
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

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    func countTokenRequest(_ grantType: String) {
        tokenRequests[Self.countedGrantTypes.contains(grantType) ? grantType : "unsupported", default: 0] += 1
    }
    func countRevocation() { revocations += 1 }
    func countUserInfo() { userInfoRequests += 1 }
    func countEndSession() { endSessions += 1 }
    func countKeySetRequest() { keySetRequests += 1 }

    /// Keeps a new code (at most ``Limits/codes`` waiting: expired ones go first, then the oldest).
    func store(code: String, _ record: CodeRecord, now: Date = Date()) {
        authorizations += 1
        codes.insert(code, record, expiresAt: record.expiresAt, now: now, limit: limits.codes)
    }

    /// The record of a live code, removed: a code is used once.
    func takeCode(_ code: String, now: Date) -> CodeRecord? {
        codes.remove(code, now: now)
    }

    func store(refreshToken: String, _ record: RefreshRecord, now: Date = Date()) {
        refreshTokens.insert(refreshToken, record, expiresAt: record.expiresAt, now: now, limit: limits.refreshTokens)
    }

    /// The record of a live refresh token issued to `clientID`; removes it when `consume`.
    func refreshRecord(_ token: String, clientID: String, now: Date, consume: Bool) -> RefreshRecord? {
        guard let record = refreshTokens.value(token, now: now), record.clientID == clientID else { return nil }
        if consume { _ = refreshTokens.remove(token, now: now) }
        return record
    }

    /// Revokes a refresh token (true when it was live).
    func revokeRefreshToken(_ token: String, clientID: String, now: Date = Date()) -> Bool {
        guard refreshTokens.value(token, now: now)?.clientID == clientID else { return false }
        _ = refreshTokens.remove(token, now: now)
        return true
    }

    /// Remembers a revoked access token until it would have expired anyway.
    func revokeAccessToken(id: String, expiresAt: Date, now: Date = Date()) {
        revokedAccessTokenIDs.insert(id, (), expiresAt: expiresAt, now: now, limit: limits.revokedAccessTokens)
    }

    func isRevoked(accessTokenID id: String, now: Date = Date()) -> Bool {
        revokedAccessTokenIDs.value(id, now: now) != nil
    }

    /// How many refresh tokens are live.
    public var liveRefreshTokens: Int { refreshTokens.count(now: Date()) }

    /// How many records the ledger holds in all (codes, refresh tokens, revocations), expired
    /// ones not yet dropped included: what it costs.
    public var recordCount: Int { codes.storedCount + refreshTokens.storedCount + revokedAccessTokenIDs.storedCount }
}
