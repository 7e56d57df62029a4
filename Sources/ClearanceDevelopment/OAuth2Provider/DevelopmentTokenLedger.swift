import Foundation

/// What the ``DevelopmentOAuth2Provider`` has issued and revoked, and what reached it.
public actor DevelopmentTokenLedger {
    struct RefreshRecord: Sendable {
        var subject: String
        var clientID: String
        var scope: String?
        var expiresAt: Date
    }

    private var refreshTokens: [String: RefreshRecord] = [:]
    private var revokedAccessTokenIDs: Set<String> = []
    /// Token requests per grant type.
    public private(set) var tokenRequests: [String: Int] = [:]
    /// Revocation requests so far.
    public private(set) var revocations = 0

    public init() {}

    func countTokenRequest(_ grantType: String) { tokenRequests[grantType, default: 0] += 1 }
    func countRevocation() { revocations += 1 }

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
