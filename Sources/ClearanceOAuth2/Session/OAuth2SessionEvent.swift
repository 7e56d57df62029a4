import ClearanceStore

/// Something that happened to an ``OAuth2Session``, for logs, analytics and UI. Carries names,
/// dates and error codes, never a secret.
public enum OAuth2SessionEvent: Sendable, CustomStringConvertible {
    /// A session was restored from the store.
    case restored(TokenInfo)
    /// A sign-in succeeded (explicit, or automatic on the first request).
    case signedIn(TokenInfo, grant: String)
    /// A sign-in failed.
    case signInFailed(OAuth2Error, grant: String)
    /// The token was refreshed.
    case refreshed(TokenInfo)
    /// A refresh failed without ending the session (network error, 5xx, …): the session is kept.
    case refreshFailed(OAuth2Error)
    /// The session ended on its own: the refresh token was refused (`invalid_grant`), the token
    /// expired with nothing to renew it, or a refresh brought an identity the verifier refused
    /// (``OAuth2Error/identityRefused(_:)``: another subject, say). The store was cleared.
    case sessionEnded(OAuth2Error)
    /// The app signed out.
    case signedOut(RevocationOutcome)
    /// The store could not be read at start: the session starts signed out. The cause says why
    /// (corrupt, wrong key, …) and where the unreadable data was moved.
    case storeUnreadable(SessionStoreError)
    /// The store holds a session issued by another server or client
    /// (``OAuth2Error/storedSessionMismatch(member:stored:configured:)``): it was not used, and
    /// the session starts signed out with the store left as it is.
    case storeRefused(OAuth2Error)
    /// Saving or clearing the store failed: the session goes on in memory, but a restart will
    /// not see this change (a lost rotated refresh token is the classic cause of a later `invalid_grant`).
    case storeWriteFailed(SessionStoreError)

    /// A stable name for the event.
    public var name: String {
        switch self {
        case .restored: "restored"
        case .signedIn: "signed_in"
        case .signInFailed: "sign_in_failed"
        case .refreshed: "refreshed"
        case .refreshFailed: "refresh_failed"
        case .sessionEnded: "session_ended"
        case .signedOut: "signed_out"
        case .storeUnreadable: "store_unreadable"
        case .storeRefused: "store_refused"
        case .storeWriteFailed: "store_write_failed"
        }
    }

    public var description: String {
        switch self {
        case .restored(let info), .refreshed(let info): "\(name)(\(info))"
        case .signedIn(let info, let grant): "\(name)(\(grant), \(info))"
        case .signInFailed(let error, let grant): "\(name)(\(grant), \(Self.codes(error)))"
        case .refreshFailed(let error), .sessionEnded(let error), .storeRefused(let error): "\(name)(\(Self.codes(error)))"
        case .signedOut(let outcome): "\(name)(\(outcome))"
        case .storeUnreadable(let error), .storeWriteFailed(let error): "\(name)(\(error.qualifiedCode))"
        }
    }

    /// The error's code, and the identity verifier's own when there is one (`oauth2.identity_refused: openid.subject_changed`).
    private static func codes(_ error: OAuth2Error) -> String {
        error.identityError.map { "\(error.qualifiedCode): \($0.qualifiedCode)" } ?? error.qualifiedCode
    }
}
