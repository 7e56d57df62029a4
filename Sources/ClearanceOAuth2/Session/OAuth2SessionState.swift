/// Where an ``OAuth2Session`` stands. Carries token information, never a token.
///
/// Published on every change through ``OAuth2Session/states`` and as a `NotificationCenter`
/// post named ``OAuth2Session/stateDidChangeNotification``.
public enum OAuth2SessionState: Sendable, CustomStringConvertible {
    /// No session: sign in, or let automatic sign-in do it on the first request.
    case signedOut
    /// A sign-in is in progress.
    case authenticating
    /// Signed in.
    case authenticated(TokenInfo)
    /// Signed in; the token is being refreshed.
    case refreshing
    /// The last sign-in failed; there is no session.
    case failed(OAuth2Error)

    /// True while the session holds a token (``authenticated(_:)`` or ``refreshing``).
    public var isAuthenticated: Bool {
        switch self {
        case .authenticated, .refreshing: true
        default: false
        }
    }

    /// The token information, when authenticated.
    public var tokenInfo: TokenInfo? {
        if case .authenticated(let info) = self { return info }
        return nil
    }

    /// A stable name for the state (`signed_out`, `authenticating`, `authenticated`, `refreshing`, `failed`).
    public var name: String {
        switch self {
        case .signedOut: "signed_out"
        case .authenticating: "authenticating"
        case .authenticated: "authenticated"
        case .refreshing: "refreshing"
        case .failed: "failed"
        }
    }

    public var description: String {
        switch self {
        case .authenticated(let info): "authenticated(\(info))"
        case .failed(let error): "failed(\(error.qualifiedCode))"
        default: name
        }
    }

    /// Same case, same token information, same error code.
    func isSame(as other: OAuth2SessionState) -> Bool {
        switch (self, other) {
        case (.signedOut, .signedOut), (.authenticating, .authenticating), (.refreshing, .refreshing): true
        case (.authenticated(let a), .authenticated(let b)): a == b
        case (.failed(let a), .failed(let b)): a.code == b.code
        default: false
        }
    }
}
