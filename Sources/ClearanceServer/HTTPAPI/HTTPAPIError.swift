import Clearance
import ClearanceSigning
import Hummingbird

/// Why an HTTP API request was refused, with the status it is answered with.
///
/// Every case is a client mistake (4xx), or a client going too fast (429), but one: a cluster's
/// history that cannot take an event (503). Messages never contain secrets or signatures.
public enum HTTPAPIError: ClearanceError, Equatable {
    /// 404: no app has this id.
    case unknownApp
    /// 403: the app is disabled (`"enabled": false`).
    case appDisabled
    /// 413: the body is larger than the hub reads.
    case bodyTooLarge(limit: Int)
    /// 401: the request signature, key, timestamp or body hash is wrong or missing.
    case authentication(SigningError)
    /// 400: a query parameter appears twice.
    case duplicateParameter(String)
    /// 400: the query cannot be read the one way it is signed: a name not in lower case, a value
    /// holding `&` once decoded, bad percent-encoding.
    case invalidQuery(SigningError)
    /// 400: the body is not a JSON object.
    case malformedJSON
    /// 400: a required member is missing.
    case missingField(String)
    /// 400: a member has the wrong type or an unacceptable value.
    case invalidField(String, reason: String)
    /// 400: a channel name is not valid.
    case invalidChannel(SigningError)
    /// 413: event data is larger than the limit.
    case eventTooLarge(limit: Int)
    /// 400: `info` asks for an attribute the request cannot have.
    case invalidInfo(String)
    /// 429: the app publishes events (`what` is "events") or reads ("read requests") faster
    /// than its `limit` per second, or the request alone would spend more than a second's worth;
    /// answered with `Retry-After: 1`.
    case rateLimited(what: String, limit: Int)
    /// 503: the channel's app keeps a history, and the cluster's history (its database) did not
    /// take the event: it was delivered to no one, and may be sent again.
    case historyUnavailable(channel: String)

    /// The HTTP status.
    public var status: HTTPResponse.Status {
        switch self {
        case .unknownApp: .notFound
        case .bodyTooLarge, .eventTooLarge: .contentTooLarge
        case .authentication: .unauthorized
        case .appDisabled: .forbidden
        case .rateLimited: .tooManyRequests
        case .historyUnavailable: .serviceUnavailable
        default: .badRequest
        }
    }

    public static let codeDomain = "api"

    /// The error a failed verification is answered with: 400 for a query that cannot be read
    /// unambiguously, 401 for the rest (key, signature, timestamp, body hash).
    init(verifying error: SigningError) {
        switch error {
        case let .duplicateParameter(name): self = .duplicateParameter(name)
        case .invalidParameterName, .ambiguousParameter, .malformedQuery: self = .invalidQuery(error)
        default: self = .authentication(error)
        }
    }

    public var qualifiedCode: String {
        switch self {
        case let .authentication(error), let .invalidChannel(error), let .invalidQuery(error): error.qualifiedCode
        default: "\(Self.codeDomain).\(code.rawValue)"
        }
    }

    public var underlying: (any Error)? {
        switch self {
        case let .authentication(error), let .invalidChannel(error), let .invalidQuery(error): error
        default: nil
        }
    }

    /// Each case's code and message.
    public var summary: ErrorSummary<Code> {
        switch self {
        case .unknownApp: .init(.unknownApp, "Unknown app id.")
        case .appDisabled: .init(.appDisabled, "The app is disabled on this hub.")
        case let .bodyTooLarge(limit): .init(.bodyTooLarge, "The request body is larger than \(limit) bytes.")
        case let .authentication(error): .init(.authentication, error.message)
        case let .duplicateParameter(name): .init(.duplicateParameter, "The query parameter '\(name)' appears more than once.")
        case let .invalidQuery(error): .init(.invalidQuery, error.message)
        case .malformedJSON: .init(.malformedJSON, "The body must be a JSON object.")
        case let .missingField(name): .init(.missingField, "'\(name)' is required.")
        case let .invalidField(name, reason): .init(.invalidField, "'\(name)' \(reason)")
        case let .invalidChannel(error): .init(.invalidChannel, error.message)
        case let .eventTooLarge(limit): .init(.eventTooLarge, "Event data is larger than \(limit) bytes.")
        case let .invalidInfo(reason): .init(.invalidInfo, reason)
        case let .rateLimited(what, limit):
            .init(.rateLimited, "The app may send \(limit) \(what) per second to this hub: try again in a second.")
        case let .historyUnavailable(channel):
            .init(.historyUnavailable, "The cluster's history could not keep the event on '\(channel)' (its database is unreachable): it was not delivered; try again.")
        }
    }

    var response: Response {
        var response = JSONResponse.error(status, code: qualifiedCode, message: message)
        switch self {
        case .rateLimited, .historyUnavailable: response.headers[.retryAfter] = "1"
        default: break
        }
        return response
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `api.<code>`, or the signing error's
    /// own (`signing.invalidSignature`) for ``authentication(_:)``, ``invalidChannel(_:)`` and
    /// ``invalidQuery(_:)``.
    public enum Code: String, Sendable, CaseIterable {
        case unknownApp, bodyTooLarge, authentication, duplicateParameter, malformedJSON, missingField
        case invalidField, invalidChannel, eventTooLarge, invalidInfo, invalidQuery, rateLimited, appDisabled, historyUnavailable
    }
}
