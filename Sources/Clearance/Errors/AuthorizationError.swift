import Foundation

/// The one error Clearance reports when it cannot authorize a request.
///
/// Every case has a stable ``code`` (safe to log, to switch on, to send to analytics), a human
/// ``message`` and, where there is one, the ``underlyingError``. Neither the message nor the
/// description ever contains a credential: anything taken from a server or an underlying error
/// is passed through ``Redactor`` first.
public enum AuthorizationError: Error, Sendable {
    /// The request could not reach the server (DNS, connection refused, TLS, timeout on the wire).
    case networkFailure(underlying: any Error)
    /// A credential or server is temporarily unavailable (for example a refresh window is open).
    case unavailable(reason: String, underlying: (any Error)? = nil)
    /// The credential expired and could not be renewed.
    case expired(reason: String)
    /// The caller's task was cancelled.
    case cancelled
    /// The server answered 401. `challenges` is the parsed `WWW-Authenticate` header.
    case unauthorized(status: Int, challenges: [AuthenticationChallenge])
    /// The server answered 403: the credential was accepted but does not grant this request.
    case forbidden(status: Int, challenges: [AuthenticationChallenge])
    /// The configuration cannot work (a policy names a source nobody registered, a credential over plain HTTP, …).
    case misconfigured(reason: String)
    /// A credential source produced nothing (nil or an empty token): the request was not sent.
    case missingCredential(source: String, underlying: (any Error)? = nil)
    /// The server answered in a way Clearance could not use. `bodySnippet` is bounded and redacted.
    case badResponse(status: Int, bodySnippet: String)
    /// Anything else, with the error that caused it.
    case unknown(underlying: any Error)

    /// Stable machine-readable codes, one per case.
    public enum Code: String, Sendable, CaseIterable {
        case networkFailure, unavailable, expired, cancelled, unauthorized, forbidden
        case misconfigured, missingCredential, badResponse, unknown
    }

    /// The stable code of this error, e.g. `"clearance.unauthorized"` via ``qualifiedCode``.
    public var code: Code {
        switch self {
        case .networkFailure: .networkFailure
        case .unavailable: .unavailable
        case .expired: .expired
        case .cancelled: .cancelled
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .misconfigured: .misconfigured
        case .missingCredential: .missingCredential
        case .badResponse: .badResponse
        case .unknown: .unknown
        }
    }

    /// The code with the `clearance.` prefix, for logs and analytics.
    public var qualifiedCode: String { "clearance.\(code.rawValue)" }

    /// The error that caused this one, if any.
    public var underlyingError: (any Error)? {
        switch self {
        case .networkFailure(let error), .unknown(let error): error
        case .unavailable(_, let error), .missingCredential(_, let error): error
        default: nil
        }
    }

    /// A human sentence saying what went wrong. Never contains a secret.
    public var message: String {
        switch self {
        case .networkFailure(let error):
            "The server could not be reached: \(Redactor.scrub(String(describing: error)))."
        case .unavailable(let reason, _):
            "Authorization is unavailable: \(Redactor.scrub(reason))."
        case .expired(let reason):
            "The credential expired: \(Redactor.scrub(reason))."
        case .cancelled:
            "The request was cancelled."
        case .unauthorized(let status, let challenges):
            "The server refused the credential (HTTP \(status))\(Self.describe(challenges))."
        case .forbidden(let status, let challenges):
            "The credential does not grant this request (HTTP \(status))\(Self.describe(challenges))."
        case .misconfigured(let reason):
            "Clearance is misconfigured: \(Redactor.scrub(reason))."
        case .missingCredential(let source, let error):
            "The credential source '\(source)' produced no credential\(error.map { ": \(Redactor.scrub(String(describing: $0)))" } ?? ""); the request was not sent."
        case .badResponse(let status, let snippet):
            "The server sent a response Clearance could not use (HTTP \(status))\(snippet.isEmpty ? "" : ": \(snippet)")."
        case .unknown(let error):
            "Unexpected error: \(Redactor.scrub(String(describing: error)))."
        }
    }

    private static func describe(_ challenges: [AuthenticationChallenge]) -> String {
        guard !challenges.isEmpty else { return "" }
        return ", challenge: " + challenges.map(\.description).joined(separator: ", ")
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

    /// Builds ``badResponse(status:bodySnippet:)`` from a raw body: at most `limit` characters, redacted.
    public static func badResponse(status: Int, body: some DataProtocol, limit: Int = 256) -> AuthorizationError {
        .badResponse(status: status, bodySnippet: Redactor.snippet(of: body, limit: limit))
    }
}

extension AuthorizationError: CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    public var description: String { "\(qualifiedCode): \(message)" }
    public var debugDescription: String { description }
    public var errorDescription: String? { message }
}
