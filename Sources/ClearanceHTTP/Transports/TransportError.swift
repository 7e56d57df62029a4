import Clearance
import Foundation

/// Errors the built-in transports raise themselves (the rest come from the HTTP library).
public enum TransportError: ClearanceError, Equatable {
    /// The request cannot be sent as it is.
    case invalidRequest(String)
    /// The response body was longer than the transport's limit.
    case bodyTooLarge(limit: Int)
    /// The HTTP library answered with something that is not an HTTP response.
    case notHTTP
    /// The request to `endpoint` (scheme, host, port and path: never a query) did not end by its
    /// deadline, `limit` after it was sent (head and body together); or, when `idle`, a streamed
    /// body sent nothing for `limit`. The request was cancelled.
    case timedOut(endpoint: String, limit: Duration, idle: Bool)

    public static let codeDomain = "transport"

    /// The endpoint of `url` as ``timedOut(endpoint:limit:idle:)`` names it: scheme, host, port
    /// and path, without user, query or fragment.
    public static func endpoint(of url: URL?) -> String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "?" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "?"
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .invalidRequest(let reason): .init(.invalidRequest, "Invalid request: \(Redactor.scrub(reason)).")
        case .bodyTooLarge(let limit): .init(.bodyTooLarge, "The response body is larger than \(limit) bytes.")
        case .notHTTP: .init(.notHTTP, "The response is not an HTTP response.")
        case .timedOut(let endpoint, let limit, let idle):
            idle
                ? .init(.timedOut, "\(Redactor.scrub(endpoint)) sent nothing for \(Self.seconds(limit)): the request was cancelled.")
                : .init(.timedOut, "\(Redactor.scrub(endpoint)) did not answer in full within \(Self.seconds(limit)): the request was cancelled.")
        }
    }

    /// Stable codes; ``qualifiedCode`` is `transport.<code>`.
    public enum Code: String, Sendable, CaseIterable { case invalidRequest, bodyTooLarge, notHTTP, timedOut }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

extension TransportError {
    /// The ``timedOut(endpoint:limit:idle:)`` that `error` is or wraps (through
    /// `ClearanceError.underlying`), if any.
    public static func timeout(in error: any Error) -> TransportError? {
        var current: (any Error)? = error
        var depth = 0
        while let error = current, depth < 8 {
            if let timeout = error as? TransportError, case .timedOut = timeout { return timeout }
            current = (error as? any ClearanceError)?.underlying
            depth += 1
        }
        return nil
    }
}
