import Clearance
/// The state an ``OAuth2Session`` holds behind its lock, and the one decision it takes on every
/// request: use the token, renew it, or fail. A value type, tested on its own.
struct SessionCore: Sendable {
    /// The token in use, with its expiry on the monotonic clock.
    struct ActiveToken: Sendable {
        var token: OAuth2Token
        /// Who signed in, as the identity verifier established it (nil without one).
        var identity: SessionIdentity?
        /// An ID token that came with `token` and could not be verified yet (its provider's keys
        /// could not be fetched): never used as the identity, verified at the next refresh.
        var pendingIDToken: String?
        /// Why `pendingIDToken` is not verified (not stored: nil after a restore).
        var pendingReason: OAuth2Error?
        /// `nil` when the server gave no lifetime.
        var expiresAtUptime: Duration?
        /// The server refused it (401) or the app invalidated it.
        var rejected = false

        /// Still accepted by the clock and not refused.
        func isUsable(at now: Duration) -> Bool {
            !rejected && (expiresAtUptime.map { now < $0 } ?? true)
        }

        /// Usable and not within `leeway` of its expiry.
        func isFresh(at now: Duration, leeway: Duration) -> Bool {
            isUsable(at: now) && (expiresAtUptime.map { now + leeway < $0 } ?? true)
        }
    }

    /// How to get a new token.
    enum Renewal: Sendable {
        case refresh(refreshToken: String)
        case signIn
    }

    /// What a request should do.
    enum Next: Sendable {
        case use(OAuth2Token)
        case renew(Renewal)
        case fail(OAuth2Error, endsSession: Bool)
    }

    var restored = false
    var active: ActiveToken?
    /// The stored session refused at restore (issued by another server or client) and why: no
    /// automatic sign-in replaces it (the store stays for its own configuration); an explicit
    /// sign-in does, and revokes its refresh token at the server it recorded.
    var refusedStore: (error: OAuth2Error, stored: StoredSession)?
    /// Bumped by every sign-in, sign-out and ended session: a renewal that started under another
    /// generation must not publish or store its result.
    var generation: UInt64 = 0
    var state: OAuth2SessionState = .signedOut
    var window: RefreshWindow
    var backoff: RefreshBackoff
    var lastFailure: OAuth2Error?

    init(window: RefreshWindow, backoff: RefreshBackoff) {
        self.window = window
        self.backoff = backoff
    }

    /// The decision for a request at `now`.
    ///
    /// A fresh token is used. A token within the leeway of its expiry is renewed, unless the
    /// window or the backoff hold renewals back, in which case it is used while it lasts. An
    /// unusable token that cannot be renewed ends the session.
    func next(now: Duration, leeway: Duration, canSignIn: Bool) -> Next {
        guard let active else {
            if let refusedStore { return .fail(refusedStore.error, endsSession: false) }
            return canSignIn ? .renew(.signIn) : .fail(.notSignedIn, endsSession: false)
        }
        if active.isFresh(at: now, leeway: leeway) { return .use(active.token) }
        let usable = active.isUsable(at: now)
        let renewal: Renewal? = active.token.refreshToken.map { .refresh(refreshToken: $0) } ?? (canSignIn ? .signIn : nil)
        guard let renewal else {
            return usable ? .use(active.token) : .fail(.tokenExpired, endsSession: true)
        }
        if usable && gate(now: now) != nil { return .use(active.token) }
        return .renew(renewal)
    }

    /// Why a renewal may not be attempted at `now`, or nil when it may.
    func gate(now: Duration) -> OAuth2Error? {
        if let wait = window.retryAfter(now: now) {
            return .refreshLimitReached(attempts: window.maximumAttempts, window: window.duration, retryAfter: wait)
        }
        if let wait = backoff.remaining(now: now) {
            return .backingOff(retryAfter: wait, cause: lastFailure ?? .serverUnavailable(HTTPErrorResponse(status: 0)))
        }
        return nil
    }
}
