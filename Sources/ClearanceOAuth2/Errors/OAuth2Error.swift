import Clearance
import ClearanceHTTP
import ClearanceStore
import Foundation

/// Everything that can go wrong in an OAuth 2.0 session.
///
/// Every case has a stable ``code`` (safe to log and to switch on), a human ``message`` and,
/// where there is one, the ``underlying``. No message or description ever contains a
/// token, secret, password, authorization code or PKCE verifier. ``authorizationError(source:)``
/// converts it for code that speaks Clearance's `AuthorizationError`.
public enum OAuth2Error: ClearanceError {
    /// The authorization server answered with an `error` (RFC 6749 §5.2 and friends).
    case server(OAuth2ServerError)
    /// The authorization server could not be reached.
    case networkFailure(underlying: any Error)
    /// The authorization server answered 5xx without an OAuth error (its `Retry-After` is the
    /// response's `HTTPErrorResponse.retryAfter`).
    case serverUnavailable(HTTPErrorResponse)
    /// The server answered something that is not a usable token response.
    case badResponse(HTTPErrorResponse, reason: String)
    /// There is no session and no automatic sign-in is configured.
    case notSignedIn
    /// The access token expired and there is nothing to renew it with (no refresh token, no automatic sign-in).
    case tokenExpired
    /// More than the allowed token requests in the refresh window: failing fast until `retryAfter` has passed.
    case refreshLimitReached(attempts: Int, window: Duration, retryAfter: Duration)
    /// The last token request failed with `cause`; the next is not tried before `retryAfter` has passed.
    indirect case backingOff(retryAfter: Duration, cause: OAuth2Error)
    /// The `state` returned to the redirect URI is not the one sent: the response is not ours.
    case stateMismatch
    /// The redirect to the redirect URI carried neither a code nor an error, or was malformed.
    case invalidRedirect(reason: String)
    /// The configuration cannot work (an insecure endpoint, a missing endpoint, a bad parameter).
    case misconfigured(reason: String)
    /// The session store failed.
    case store(SessionStoreError)
    /// The caller's task was cancelled.
    case cancelled
    /// An interactive step (a redirect, a device approval) did not finish in time.
    case timedOut(reason: String)
    /// The stored session was issued by another server or client than the session is configured
    /// for: `member` differs (the stored and the configured value, never a secret). It was not
    /// used, nothing was sent, and the store was left as it is for the configuration it belongs
    /// to; an explicit sign-in replaces it.
    case storedSessionMismatch(member: SessionProvenance.Member, stored: String, configured: String)
    /// A request to the authorization server (token, revocation, device authorization) did not
    /// end by its deadline: the `TransportError.timedOut` names the endpoint. Code `timed_out`.
    case requestTimedOut(TransportError)
    /// The session's ``IdentityVerifier`` refused who the token response says signed in (with
    /// OpenID Connect: the ID token failed a check; the underlying error says which, with its own
    /// code). A sign-in stores nothing; a refresh ends the session.
    case identityRefused(any ClearanceError)
    /// The session's ``IdentityVerifier`` could not decide (its provider's keys or metadata could
    /// not be fetched). A sign-in fails; a refresh fails and keeps the session.
    case identityUnavailable(any ClearanceError)

    /// ``qualifiedCode`` is `oauth2.<code>`, the code in the RFCs' own spelling (`oauth2.invalid_grant`).
    public static let codeDomain = "oauth2"

    /// What the server answered, when an answer caused this error.
    public var response: HTTPErrorResponse? {
        switch self {
        case .server(let error): error.response
        case .serverUnavailable(let response), .badResponse(let response, _): response
        case .backingOff(_, let cause): cause.response
        default: nil
        }
    }

    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        switch self {
        case .networkFailure(let error): error
        case .backingOff(_, let cause): cause
        case .store(let error): error
        case .identityRefused(let error), .identityUnavailable(let error): error
        case .requestTimedOut(let error): error
        default: nil
        }
    }

    /// The identity verifier's own error (with its own code, `openid.bad_signature` say) when
    /// this is ``identityRefused(_:)`` or ``identityUnavailable(_:)``.
    public var identityError: (any ClearanceError)? {
        switch self {
        case .identityRefused(let error), .identityUnavailable(let error): error
        case .backingOff(_, let cause): cause.identityError
        default: nil
        }
    }

    /// True when the error means the session must end: the grant is dead (RFC 6749 §5.2
    /// `invalid_grant`), or a refreshed identity was refused (an identity never changes silently).
    public var endsSession: Bool { code == .invalidGrant || code == .identityRefused }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .server(let error): .init(error.kind, "The authorization server refused the request: \(error).")
        case .networkFailure(let error): .init(.networkFailure, "The authorization server could not be reached: \(Redactor.describe(error)).")
        case .serverUnavailable(let response):
            .init(.serverUnavailable, "The authorization server is unavailable (HTTP \(response.status))\(response.retryAfter.map { "; it asks to retry after \(Self.seconds($0))" } ?? "").")
        case .badResponse(let response, let reason):
            .init(.badResponse, "The authorization server sent a response that is not a usable token response (HTTP \(response.status)): \(Redactor.scrub(reason)).")
        case .notSignedIn: .init(.notSignedIn, "Not signed in, and no automatic sign-in is configured.")
        case .tokenExpired: .init(.tokenExpired, "The access token expired and there is no refresh token or automatic sign-in to renew it.")
        case .refreshLimitReached(let attempts, let window, let retryAfter):
            .init(.refreshLimitReached, "Too many token requests: \(attempts) in \(Self.seconds(window)); failing fast for another \(Self.seconds(retryAfter)).")
        case .backingOff(let retryAfter, let cause):
            .init(.backingOff, "The last token request failed (\(cause.qualifiedCode)); the next is not tried for another \(Self.seconds(retryAfter)).")
        case .stateMismatch: .init(.stateMismatch, "The authorization response's state does not match the request's: it was not issued for this sign-in and was discarded.")
        case .invalidRedirect(let reason): .init(.invalidRedirect, "The authorization redirect cannot be used: \(Redactor.scrub(reason)).")
        case .misconfigured(let reason): .init(.misconfigured, "The OAuth 2.0 session is misconfigured: \(Redactor.scrub(reason)).")
        case .store(let error): .init(.storeFailure, "The session store failed: \(error.message)")
        case .cancelled: .init(.cancelled, "The operation was cancelled.")
        case .timedOut(let reason): .init(.timedOut, "Timed out: \(Redactor.scrub(reason)).")
        case .storedSessionMismatch(let member, let stored, let configured):
            .init(.storedSessionMismatch, "The stored session was issued for another \(member.rawValue) ('\(Redactor.scrub(stored))', not '\(Redactor.scrub(configured))' as configured): it was not used and nothing was sent; sign in to replace it.")
        case .requestTimedOut(let error): .init(.timedOut, "The authorization server did not answer in time: \(error.message)")
        case .identityRefused(let error): .init(.identityRefused, "The identity in the token response was refused (\(error.qualifiedCode)): \(error.message)")
        case .identityUnavailable(let error): .init(.identityUnavailable, "The identity in the token response could not be verified (\(error.qualifiedCode)): \(error.message)")
        }
    }

    /// Converts to Clearance's `AuthorizationError`, keeping this error as the underlying one
    /// wherever the target case has room for it.
    ///
    /// - Network failures stay `AuthorizationError.networkFailure`.
    /// - Transient trouble (5xx, `server_error`, the refresh window, backoff, the store, a
    ///   broken response, a timeout) is `AuthorizationError.unavailable`.
    /// - A session configuration that cannot work is `AuthorizationError.misconfigured`.
    /// - Everything else means the session has no credential to give (not signed in, the grant
    ///   refused or ended, the client refused): `AuthorizationError.missingCredential`,
    ///   so a `FallbackCredentialSource` may try its next source.
    public func authorizationError(source: String) -> AuthorizationError {
        switch code {
        case .cancelled: return .cancelled
        case .networkFailure: return .networkFailure(underlying: self)
        case .serverUnavailable, .serverError, .temporarilyUnavailable, .refreshLimitReached, .backingOff, .storeFailure, .timedOut,
            .authorizationPending, .slowDown, .badResponse, .identityUnavailable:
            return .unavailable(reason: message, underlying: self)
        case .misconfigured: return .misconfigured(reason: message)
        case .notSignedIn, .invalidGrant, .tokenExpired, .accessDenied, .expiredToken, .invalidClient, .unauthorizedClient,
            .unsupportedGrantType, .invalidScope, .invalidRequest, .unsupportedResponseType, .unsupportedTokenType,
            .unrecognizedServerError, .stateMismatch, .invalidRedirect, .identityRefused, .storedSessionMismatch:
            return .missingCredential(source: source, underlying: self)
        }
    }

    /// Wraps any error: passes an ``OAuth2Error`` through, maps cancellation to ``cancelled``,
    /// and anything else to ``networkFailure(underlying:)`` (it came from sending a request).
    init(wrappingTransportError error: any Error) {
        if let error = error as? OAuth2Error {
            self = error
        } else if let timeout = TransportError.timeout(in: error) {
            self = .requestTimedOut(timeout)
        } else if error is CancellationError || Task.isCancelled {
            self = .cancelled
        } else if let error = error as? AuthorizationError {
            self = error.code == .cancelled ? .cancelled : .networkFailure(underlying: error)
        } else {
            self = .networkFailure(underlying: error)
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// Stable machine-readable codes, one per failure, in the RFCs' own spelling: first the
    /// `error` values authorization servers answer with (RFC 6749 §4.1.2.1, §5.2, RFC 7009 §2.2.1,
    /// RFC 8628 §3.5), then Clearance's own.
    public enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case unsupportedResponseType = "unsupported_response_type"
        case serverError = "server_error"
        case temporarilyUnavailable = "temporarily_unavailable"
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case expiredToken = "expired_token"
        case unsupportedTokenType = "unsupported_token_type"
        /// A server `error` value no RFC defines.
        case unrecognizedServerError = "unrecognized_server_error"
        case networkFailure = "network_failure"
        case serverUnavailable = "server_unavailable"
        case badResponse = "bad_response"
        case notSignedIn = "not_signed_in"
        case tokenExpired = "token_expired"
        case refreshLimitReached = "refresh_limit_reached"
        case backingOff = "backing_off"
        case stateMismatch = "state_mismatch"
        case invalidRedirect = "invalid_redirect"
        case misconfigured
        case storeFailure = "store_failure"
        case cancelled
        case timedOut = "timed_out"
        case identityRefused = "identity_refused"
        case identityUnavailable = "identity_unavailable"
        case storedSessionMismatch = "stored_session_mismatch"

        /// The codes a server may answer with (the RFCs' `error` values).
        static let serverCodes: Set<Code> = [
            .invalidRequest, .invalidClient, .invalidGrant, .unauthorizedClient, .unsupportedGrantType, .invalidScope,
            .accessDenied, .unsupportedResponseType, .serverError, .temporarilyUnavailable, .authorizationPending,
            .slowDown, .expiredToken, .unsupportedTokenType,
        ]
    }
}
