import Foundation

/// The one error Clearance reports when it cannot authorize a request.
///
/// Every case has a stable ``code`` (safe to log, to switch on, to send to analytics), a human
/// ``message`` and, where there is one, the ``underlying`` error; every answer from a server is
/// kept as an ``HTTPErrorResponse``. Neither the message nor the description ever contains a
/// credential: anything taken from a server or an underlying error is passed through
/// ``Redactor`` first, and an underlying error's text has every URL query string masked
/// (``Redactor/describe(_:masking:)``); when it held the credential Clearance had applied, the
/// underlying error is a ``RedactedError`` with that credential masked.
public enum AuthorizationError: ClearanceError {
    /// The request could not reach the server (DNS, connection refused, TLS, timeout on the wire).
    case networkFailure(underlying: any Error)
    /// A credential or server is temporarily unavailable (for example a refresh window is open).
    case unavailable(reason: String, underlying: (any Error)? = nil)
    /// The credential expired and could not be renewed.
    case expired(reason: String)
    /// The caller's task was cancelled.
    case cancelled
    /// The server answered 401, even after the one refresh and retry its challenge allowed.
    case unauthorized(HTTPErrorResponse)
    /// The server answered 403: the credential was accepted but does not grant this request.
    case forbidden(HTTPErrorResponse)
    /// The configuration cannot work (a policy names a source nobody registered, a credential over plain HTTP, …).
    case misconfigured(reason: String)
    /// A credential source produced nothing (nil or an empty token): the request was not sent.
    case missingCredential(source: String, underlying: (any Error)? = nil)
    /// The server answered in a way Clearance could not use.
    case badResponse(HTTPErrorResponse)
    /// The server redirected more than `limit` times in a row; `last` is the last redirect.
    case tooManyRedirects(limit: Int, last: HTTPErrorResponse)
    /// Anything else, with the error that caused it.
    case unknown(underlying: any Error)

    public static let codeDomain = "clearance"

    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        switch self {
        case .networkFailure(let error), .unknown(let error): error
        case .unavailable(_, let error), .missingCredential(_, let error): error
        default: nil
        }
    }

    /// What the server answered, when an answer caused this error.
    public var response: HTTPErrorResponse? {
        switch self {
        case .unauthorized(let response), .forbidden(let response), .badResponse(let response), .tooManyRedirects(_, let response): response
        default: nil
        }
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .networkFailure(let error): .init(.networkFailure, "The server could not be reached: \(Redactor.describe(error)).")
        case .unavailable(let reason, _): .init(.unavailable, "Authorization is unavailable: \(Redactor.scrub(reason)).")
        case .expired(let reason): .init(.expired, "The credential expired: \(Redactor.scrub(reason)).")
        case .cancelled: .init(.cancelled, "The request was cancelled.")
        case .unauthorized(let response): .init(.unauthorized, "The server refused the credential (\(response)).")
        case .forbidden(let response): .init(.forbidden, "The credential does not grant this request (\(response)).")
        case .misconfigured(let reason): .init(.misconfigured, "Clearance is misconfigured: \(Redactor.scrub(reason)).")
        case .missingCredential(let source, let error):
            .init(.missingCredential, "The credential source '\(source)' produced no credential\(error.map { ": \(Redactor.describe($0))" } ?? ""); the request was not sent.")
        case .badResponse(let response): .init(.badResponse, "The server sent a response Clearance could not use (\(response)).")
        case .tooManyRedirects(let limit, let last): .init(.tooManyRedirects, "The server redirected more than \(limit) times (last: HTTP \(last.status)).")
        case .unknown(let error): .init(.unknown, "Unexpected error: \(Redactor.describe(error)).")
        }
    }

    /// Wraps any error as an ``AuthorizationError``: passes one through, maps cancellation to
    /// ``cancelled`` and everything else to ``unknown(underlying:)``.
    public init(wrapping error: any Error) {
        if let error = error as? AuthorizationError {
            self = error
        } else if error is CancellationError {
            self = .cancelled
        } else {
            self = .unknown(underlying: error)
        }
    }

    /// Stable machine-readable codes, one per case; ``qualifiedCode`` is `clearance.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case networkFailure, unavailable, expired, cancelled, unauthorized, forbidden
        case misconfigured, missingCredential, badResponse, tooManyRedirects, unknown
    }
}
