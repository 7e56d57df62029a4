import Clearance

/// Errors the built-in transports raise themselves (the rest come from the HTTP library).
public enum TransportError: ClearanceError, Equatable {
    /// The request cannot be sent as it is.
    case invalidRequest(String)
    /// The response body was longer than the transport's limit.
    case bodyTooLarge(limit: Int)
    /// The HTTP library answered with something that is not an HTTP response.
    case notHTTP

    /// Stable codes; ``qualifiedCode`` is `transport.<code>`.
    public enum Code: String, Sendable, CaseIterable { case invalidRequest, bodyTooLarge, notHTTP }

    public static let codeDomain = "transport"

    public var code: Code {
        switch self {
        case .invalidRequest: .invalidRequest
        case .bodyTooLarge: .bodyTooLarge
        case .notHTTP: .notHTTP
        }
    }

    public var message: String {
        switch self {
        case .invalidRequest(let reason): "Invalid request: \(Redactor.scrub(reason))."
        case .bodyTooLarge(let limit): "The response body is larger than \(limit) bytes."
        case .notHTTP: "The response is not an HTTP response."
        }
    }
}
