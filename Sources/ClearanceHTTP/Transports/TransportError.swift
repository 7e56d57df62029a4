/// Errors the built-in transports raise themselves (the rest come from the HTTP library).
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request cannot be sent as it is.
    case invalidRequest(String)
    /// The response body was longer than the transport's limit.
    case bodyTooLarge(limit: Int)
    /// The HTTP library answered with something that is not an HTTP response.
    case notHTTP

    public var description: String {
        switch self {
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .bodyTooLarge(let limit): "the response body is larger than \(limit) bytes"
        case .notHTTP: "the response is not an HTTP response"
        }
    }
}
