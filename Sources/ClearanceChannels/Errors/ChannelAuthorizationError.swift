import Clearance
import Foundation

/// Why a channel (or a user sign-in) could not be authorized: each failure its own case, with
/// the auth endpoint's answer kept whole (libPusher reported a 403 as "unknown error 1").
///
/// ``message`` is for people and never contains a signature, token or shared secret: answers are
/// shown as redacted snippets. The raw body stays available to the app in ``response``.
public enum ChannelAuthorizationError: ClearanceError {
    /// The auth endpoint answered with a status other than 200 or 201 (401 and 403 included).
    case httpStatus(HTTPErrorResponse)
    /// The auth endpoint answered 200/201 with an empty body.
    case emptyBody(HTTPErrorResponse)
    /// The body is not JSON.
    case notJSON(HTTPErrorResponse)
    /// The body is JSON but not an object.
    case notObject(HTTPErrorResponse)
    /// The body is an object without a usable string `auth` (or, for sign-in, `user_data`).
    case missingAuth(HTTPErrorResponse)
    /// A presence channel's authorization has no `channel_data`.
    case missingChannelData
    /// An encrypted channel's authorization has no `shared_secret`, or not base64 of 32 bytes.
    case invalidSharedSecret
    /// The request did not reach the endpoint, or the connection broke.
    case transport(underlying: any Error)
    /// No answer within the client's authorization deadline (it retries with back-off before it gives up).
    case timedOut(after: Duration)
    /// The app's own authorizer refused the channel.
    case denied(reason: String?)
    /// The app's own authorizer failed with an error of its own.
    case custom(underlying: any Error)
    /// The credential for the auth request could not be had (see `AuthorizationError`).
    case credential(AuthorizationError)
    /// The authorizer cannot work as configured (an unsigned inline secret, plain HTTP, …).
    case misconfigured(reason: String)
    /// The task waiting for the authorization was cancelled.
    case cancelled

    public static let codeDomain = "channels.auth"

    /// What the auth endpoint answered, when an answer caused this error.
    public var response: HTTPErrorResponse? {
        switch self {
        case .httpStatus(let response), .emptyBody(let response), .notJSON(let response), .notObject(let response), .missingAuth(let response): response
        case .credential(let error): error.response
        default: nil
        }
    }

    /// The HTTP status the endpoint answered with, when there was an answer.
    public var status: Int? { response?.status }

    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        switch self {
        case .transport(let error), .custom(let error): error
        case .credential(let error): error
        default: nil
        }
    }

    /// Whether trying again may help: transport failures, timeouts and 5xx/429/408 answers.
    public var isTransient: Bool {
        switch self {
        case .transport, .timedOut: true
        case .httpStatus(let response): response.status >= 500 || response.status == 429 || response.status == 408
        case .credential(.networkFailure), .credential(.unavailable): true
        default: false
        }
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .httpStatus(let response): .init(.httpStatus, "The auth endpoint refused the channel with HTTP \(response.status)\(Self.snippet(response)).")
        case .emptyBody(let response): .init(.emptyBody, "The auth endpoint answered HTTP \(response.status) with an empty body.")
        case .notJSON(let response): .init(.notJSON, "The auth endpoint answered HTTP \(response.status) with a body that is not JSON\(Self.snippet(response)).")
        case .notObject(let response): .init(.notObject, "The auth endpoint answered HTTP \(response.status) with JSON that is not an object\(Self.snippet(response)).")
        case .missingAuth(let response): .init(.missingAuth, "The auth endpoint answered HTTP \(response.status) without a string \"auth\"\(Self.snippet(response)).")
        case .missingChannelData: .init(.missingChannelData, "The authorization of a presence channel has no channel_data.")
        case .invalidSharedSecret: .init(.invalidSharedSecret, "The authorization of an encrypted channel has no usable shared_secret (base64 of 32 bytes).")
        case .transport(let error): .init(.transport, "The auth endpoint could not be reached: \(Redactor.describe(error)).")
        case .timedOut(let duration): .init(.timedOut, "The authorization did not answer within \(duration).")
        case .denied(let reason): .init(.denied, "The app's authorizer denied the channel\(reason.map { ": \(Redactor.scrub($0))" } ?? "").")
        case .custom(let error): .init(.custom, "The app's authorizer failed: \(Redactor.describe(error)).")
        case .credential(let error): .init(.credential, "The credential for the auth request failed: \(error.message)")
        case .misconfigured(let reason): .init(.misconfigured, "The channel authorizer is misconfigured: \(Redactor.scrub(reason)).")
        case .cancelled: .init(.cancelled, "The authorization was cancelled.")
        }
    }

    private static func snippet(_ response: HTTPErrorResponse) -> String {
        response.bodySnippet.isEmpty ? "" : ": \(response.bodySnippet)"
    }

    /// Wraps any error from an authorizer: passes a ``ChannelAuthorizationError`` through, maps
    /// cancellation to ``cancelled``, a Clearance `AuthorizationError` to ``credential(_:)``
    /// (or what it means), and anything else to ``custom(underlying:)``.
    public init(wrapping error: any Error) {
        switch error {
        case let error as ChannelAuthorizationError: self = error
        case is CancellationError: self = .cancelled
        case let error as AuthorizationError: self = Self(error)
        default: self = .custom(underlying: error)
        }
    }

    /// What a failed auth request means: a refusal is the endpoint's answer, a network failure
    /// a transport error, cancellation cancellation, anything else the credential's problem.
    init(_ error: AuthorizationError) {
        switch error {
        case .cancelled: self = .cancelled
        case .networkFailure(let underlying): self = .transport(underlying: underlying)
        case .unauthorized(let response), .forbidden(let response): self = .httpStatus(response)
        default: self = .credential(error)
        }
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `channels.auth.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case httpStatus, emptyBody, notJSON, notObject, missingAuth, missingChannelData, invalidSharedSecret
        case transport, timedOut, denied, custom, credential, misconfigured, cancelled
    }
}
