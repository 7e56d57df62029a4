import ClearanceSigning
import Hummingbird

/// Why an HTTP API request was refused, with the status it is answered with.
///
/// Every case is a client mistake (4xx). Messages never contain secrets or signatures.
public enum HTTPAPIError: Error, Sendable, Equatable {
    /// 404: no app has this id.
    case unknownApp
    /// 413: the body is larger than the hub reads.
    case bodyTooLarge(limit: Int)
    /// 401: the request signature, key, timestamp or body hash is wrong or missing.
    case authentication(SigningError)
    /// 400: a query parameter appears twice.
    case duplicateParameter(String)
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

    /// The HTTP status.
    public var status: HTTPResponse.Status {
        switch self {
        case .unknownApp: .notFound
        case .bodyTooLarge, .eventTooLarge: .contentTooLarge
        case .authentication: .unauthorized
        default: .badRequest
        }
    }

    /// A stable machine-readable code such as `api.unknownApp`.
    public var code: String {
        switch self {
        case .unknownApp: "api.unknownApp"
        case .bodyTooLarge: "api.bodyTooLarge"
        case let .authentication(error): error.code
        case .duplicateParameter: "api.duplicateParameter"
        case .malformedJSON: "api.malformedJSON"
        case .missingField: "api.missingField"
        case .invalidField: "api.invalidField"
        case let .invalidChannel(error): error.code
        case .eventTooLarge: "api.eventTooLarge"
        case .invalidInfo: "api.invalidInfo"
        }
    }

    /// A human-readable explanation.
    public var message: String {
        switch self {
        case .unknownApp: "Unknown app id."
        case let .bodyTooLarge(limit): "The request body is larger than \(limit) bytes."
        case let .authentication(error): error.message
        case let .duplicateParameter(name): "The query parameter '\(name)' appears more than once."
        case .malformedJSON: "The body must be a JSON object."
        case let .missingField(name): "'\(name)' is required."
        case let .invalidField(name, reason): "'\(name)' \(reason)"
        case let .invalidChannel(error): error.message
        case let .eventTooLarge(limit): "Event data is larger than \(limit) bytes."
        case let .invalidInfo(reason): reason
        }
    }

    var response: Response {
        JSONResponse.error(status, code: code, message: message)
    }
}
