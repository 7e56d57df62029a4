import Clearance

/// Errors the built-in transports raise themselves (the rest come from the HTTP library).
public enum TransportError: ClearanceError, Equatable {
    /// The request cannot be sent as it is.
    case invalidRequest(String)
    /// The response body was longer than the transport's limit.
    case bodyTooLarge(limit: Int)
    /// The HTTP library answered with something that is not an HTTP response.
    case notHTTP

    public static let codeDomain = "transport"

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .invalidRequest(let reason): .init(.invalidRequest, "Invalid request: \(Redactor.scrub(reason)).")
        case .bodyTooLarge(let limit): .init(.bodyTooLarge, "The response body is larger than \(limit) bytes.")
        case .notHTTP: .init(.notHTTP, "The response is not an HTTP response.")
        }
    }

    /// Stable codes; ``qualifiedCode`` is `transport.<code>`.
    public enum Code: String, Sendable, CaseIterable { case invalidRequest, bodyTooLarge, notHTTP }
}
