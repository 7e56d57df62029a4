import Clearance
import ClearanceSigning
import Hummingbird

/// Why an auth endpoint refused a request, with the status it is answered with.
///
/// Client mistakes are 4xx; only a decision closure that throws or allows a presence channel
/// without naming the user (the app's mistake) gives 500. Messages never contain credentials.
public enum AuthEndpointError: ClearanceError, Equatable {
    /// 413: the body is larger than the endpoint accepts.
    case bodyTooLarge(limit: Int)
    /// 400: the body is not a form (or JSON object) the endpoint understands.
    case malformedBody
    /// 400: a field appears twice.
    case duplicateField(String)
    /// 400: `socket_id` is missing.
    case missingSocketID
    /// 400: `socket_id` does not match `^\d+\.\d+$`.
    case invalidSocketID
    /// 400: no `channel_name` (nor `channel_name[N]`).
    case missingChannelName
    /// 400: both `channel_name` and `channel_name[N]`, or more batched names than allowed.
    case invalidBatch(String)
    /// 400: the channel name is not valid.
    case invalidChannelName(SigningError)
    /// 400: the app cannot authorize this kind of channel (encrypted channels without a master key).
    case unsupportedChannel(SigningError)
    /// 400: the request's credentials are malformed.
    case malformedCredentials(String)
    /// 503: the identity store is unavailable.
    case identityUnavailable(String)
    /// 403: the app's decision was to deny.
    case forbidden
    /// 500: the app's decision closure failed or gave an unusable answer.
    case decisionFailed(String)

    /// The HTTP status.
    public var status: HTTPResponse.Status {
        switch self {
        case .bodyTooLarge: .contentTooLarge
        case .identityUnavailable: .serviceUnavailable
        case .forbidden: .forbidden
        case .decisionFailed: .internalServerError
        default: .badRequest
        }
    }

    public static let codeDomain = "auth"

    /// Each case's code and message (safe to return to the client).
    public var summary: ErrorSummary<Code> {
        switch self {
        case let .bodyTooLarge(limit): .init(.bodyTooLarge, "The request body is larger than \(limit) bytes.")
        case .malformedBody: .init(.malformedBody, "The body must be application/x-www-form-urlencoded (or a JSON object) with socket_id and channel_name.")
        case let .duplicateField(name): .init(.duplicateField, "The field '\(name)' appears more than once.")
        case .missingSocketID: .init(.missingSocketID, "socket_id is required.")
        case .invalidSocketID: .init(.invalidSocketID, SigningError.invalidSocketID.message)
        case .missingChannelName: .init(.missingChannelName, "channel_name is required.")
        case let .invalidBatch(reason): .init(.invalidBatch, reason)
        case let .invalidChannelName(error): .init(.invalidChannelName, error.message)
        case let .unsupportedChannel(error): .init(.unsupportedChannel, error.message)
        case let .malformedCredentials(reason): .init(.malformedCredentials, reason)
        case let .identityUnavailable(reason): .init(.identityUnavailable, reason)
        case .forbidden: .init(.forbidden, "Not authorized.")
        case let .decisionFailed(reason): .init(.decisionFailed, reason)
        }
    }

    var response: Response {
        JSONResponse.error(status, code: qualifiedCode, message: message)
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `auth.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case bodyTooLarge, malformedBody, duplicateField, missingSocketID, invalidSocketID, missingChannelName, invalidBatch, invalidChannelName, unsupportedChannel, malformedCredentials, identityUnavailable, forbidden, decisionFailed
    }
}
