import Clearance

/// Why a channel (or a user sign-in) could not be authorized: each failure its own case, with the
/// HTTP status and body kept for the app (libPusher reported a 403 as "unknown error 1").
///
/// ``code`` is stable; ``message`` is for people and never contains a signature, token or shared
/// secret (bodies are shown as redacted snippets). The raw ``body`` stays available to the app.
public enum ChannelAuthorizationError: Error, Sendable, CustomStringConvertible {
    /// The auth endpoint answered with a status other than 200 or 201 (401 and 403 included).
    case httpStatus(status: Int, body: String)
    /// The auth endpoint answered 200/201 with an empty body.
    case emptyBody(status: Int)
    /// The body is not JSON.
    case notJSON(status: Int, body: String)
    /// The body is JSON but not an object.
    case notObject(status: Int, body: String)
    /// The body is an object without a usable string `auth` (or, for sign-in, `user_data`).
    case missingAuth(status: Int, body: String)
    /// A presence channel's authorization has no `channel_data`.
    case missingChannelData
    /// An encrypted channel's authorization has no `shared_secret`, or not base64 of 32 bytes.
    case invalidSharedSecret
    /// The request did not reach the endpoint, or the connection broke.
    case transport(underlying: any Error)
    /// No answer in time (the client retries with back-off before it gives up).
    case timedOut(after: Duration)
    /// The app's own authorizer refused the channel.
    case denied(reason: String?)
    /// The app's own authorizer failed with an error of its own.
    case custom(underlying: any Error)
    /// The credential for the auth request could not be had (see `AuthorizationError`).
    case credential(AuthorizationError)
    /// The authorizer cannot work as configured (an unsigned inline secret, plain HTTP, …).
    case misconfigured(reason: String)

    /// Stable machine-readable codes.
    public var code: String {
        switch self {
        case .httpStatus: "channels.auth.httpStatus"
        case .emptyBody: "channels.auth.emptyBody"
        case .notJSON: "channels.auth.notJSON"
        case .notObject: "channels.auth.notObject"
        case .missingAuth: "channels.auth.missingAuth"
        case .missingChannelData: "channels.auth.missingChannelData"
        case .invalidSharedSecret: "channels.auth.invalidSharedSecret"
        case .transport: "channels.auth.transport"
        case .timedOut: "channels.auth.timedOut"
        case .denied: "channels.auth.denied"
        case .custom: "channels.auth.custom"
        case .credential: "channels.auth.credential"
        case .misconfigured: "channels.auth.misconfigured"
        }
    }

    /// The HTTP status the endpoint answered with, when there was an answer.
    public var status: Int? {
        switch self {
        case .httpStatus(let status, _), .emptyBody(let status), .notJSON(let status, _),
             .notObject(let status, _), .missingAuth(let status, _):
            status
        case .credential(.unauthorized(let status, _)), .credential(.forbidden(let status, _)):
            status
        default:
            nil
        }
    }

    /// The response body as received (not redacted: it is the app's own data; do not log it).
    public var body: String? {
        switch self {
        case .httpStatus(_, let body), .notJSON(_, let body), .notObject(_, let body), .missingAuth(_, let body):
            body
        case .emptyBody:
            ""
        default:
            nil
        }
    }

    /// The error that caused this one, if any.
    public var underlyingError: (any Error)? {
        switch self {
        case .transport(let error), .custom(let error): error
        case .credential(let error): error
        default: nil
        }
    }

    /// Whether trying again may help: transport failures, timeouts and 5xx/429 answers.
    public var isTransient: Bool {
        switch self {
        case .transport, .timedOut: true
        case .httpStatus(let status, _): status >= 500 || status == 429 || status == 408
        case .credential(.networkFailure), .credential(.unavailable): true
        default: false
        }
    }

    /// A human sentence saying what went wrong. Never contains a secret.
    public var message: String {
        switch self {
        case .httpStatus(let status, let body):
            "The auth endpoint refused the channel with HTTP \(status)\(Self.snippet(body))."
        case .emptyBody(let status):
            "The auth endpoint answered HTTP \(status) with an empty body."
        case .notJSON(let status, let body):
            "The auth endpoint answered HTTP \(status) with a body that is not JSON\(Self.snippet(body))."
        case .notObject(let status, let body):
            "The auth endpoint answered HTTP \(status) with JSON that is not an object\(Self.snippet(body))."
        case .missingAuth(let status, let body):
            "The auth endpoint answered HTTP \(status) without a string \"auth\"\(Self.snippet(body))."
        case .missingChannelData:
            "The authorization of a presence channel has no channel_data."
        case .invalidSharedSecret:
            "The authorization of an encrypted channel has no usable shared_secret (base64 of 32 bytes)."
        case .transport(let error):
            "The auth endpoint could not be reached: \(Redactor.scrub(String(describing: error)))."
        case .timedOut(let duration):
            "The authorization did not answer within \(duration)."
        case .denied(let reason):
            "The app's authorizer denied the channel\(reason.map { ": \(Redactor.scrub($0))" } ?? "")."
        case .custom(let error):
            "The app's authorizer failed: \(Redactor.scrub(String(describing: error)))."
        case .credential(let error):
            "The credential for the auth request failed: \(error.message)"
        case .misconfigured(let reason):
            "The channel authorizer is misconfigured: \(Redactor.scrub(reason))."
        }
    }

    public var description: String { "\(code): \(message)" }

    private static func snippet(_ body: String) -> String {
        let text = Redactor.snippet(of: Array(body.utf8), limit: 200)
        return text.isEmpty ? "" : ": \(text)"
    }

    /// Wraps any error: passes a ``ChannelAuthorizationError`` through, maps cancellation to
    /// `CancellationError` (by returning nil), everything else to ``custom(underlying:)``.
    static func wrapping(_ error: any Error) -> ChannelAuthorizationError? {
        if let error = error as? ChannelAuthorizationError { return error }
        if error is CancellationError { return nil }
        if let error = error as? AuthorizationError {
            if case .cancelled = error { return nil }
            return .credential(error)
        }
        return .custom(underlying: error)
    }
}
