import Clearance
import Foundation

/// Why a provider could not decide, sign in, or hand over credentials: Pugpig's provider error
/// codes, with stable qualified codes (`entitlements.<code>`), a human message, the server's
/// answer (`HTTPErrorResponse`) and the underlying error when there is one.
public enum EntitlementError: ClearanceError {
    /// The service could not be reached (no connection, a timeout, a TLS failure, cancelled).
    case networkFailure(underlying: any Error)
    /// The product is not part of the user's active subscription (Pugpig's `notentitled` while active).
    case productUnavailable(product: String, message: String?)
    /// The subscription is not active (`state` is `inactive` or `suspended`), or the session
    /// ended (`signedOut`: never signed in, or renewal was refused).
    case subscriptionExpired(state: SubscriptionState, message: String?)
    /// Anything else, keeping what is known: an HTTP answer that is not a usable one (5xx, an
    /// unparsable or hostile document), an `<error>` without a known status, a store failure.
    case unknown(reason: String, status: String? = nil, response: HTTPErrorResponse? = nil, underlying: (any Error)? = nil)
    /// The user cancelled a purchase (store providers).
    case purchaseCancelled
    /// The sign-in was refused (Pugpig's `<error status="notrecognised">`, or any error on sign-in).
    case notRecognised(message: String?)

    public static let codeDomain = "entitlements"

    /// The server's answer, when an HTTP answer caused the error.
    public var response: HTTPErrorResponse? {
        if case .unknown(_, _, let response, _) = self { return response }
        return nil
    }

    /// The message the service gave (Pugpig's `message` attribute), redacted; nil when it gave none.
    public var serverMessage: String? {
        switch self {
        case .productUnavailable(_, let message), .subscriptionExpired(_, let message), .notRecognised(let message):
            message.map(Redactor.scrub)
        default:
            nil
        }
    }

    public var underlying: (any Error)? {
        switch self {
        case .networkFailure(let error): error
        case .unknown(_, _, _, let error): error
        default: nil
        }
    }

    /// True when the operation was cancelled (reported as a network failure).
    public var isCancellation: Bool {
        if case .networkFailure(let error) = self { return error is CancellationError }
        return false
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .networkFailure(let error):
            .init(.networkFailure, error is CancellationError ? "The request was cancelled." : "The service could not be reached: \(Redactor.describe(error)).")
        case .productUnavailable(let product, _):
            .init(.productUnavailable, "'\(product)' is not part of the subscription\(said).")
        case .subscriptionExpired(let state, _):
            .init(.subscriptionExpired, state == .signedOut ? "There is no session (signed out)\(said)." : "The subscription is \(state)\(said).")
        case .unknown(let reason, let status, let response, _):
            .init(.unknown, "\(Redactor.scrub(reason))\(Self.serverAnswer(status: status, response: response)).")
        case .purchaseCancelled:
            .init(.purchaseCancelled, "The purchase was cancelled.")
        case .notRecognised:
            .init(.notRecognised, "The sign-in was not recognised\(said).")
        }
    }

    /// `: <the service's message>`, or nothing when it gave none.
    private var said: String { serverMessage.map { ": \($0)" } ?? "" }

    /// ` (status …, HTTP …)`, or nothing when neither is known.
    private static func serverAnswer(status: String?, response: HTTPErrorResponse?) -> String {
        let server = [status.map { "status \($0)" }, response.map { "\($0)" }].compactMap { $0 }.joined(separator: ", ")
        return server.isEmpty ? "" : " (\(server))"
    }

    /// Stable codes; ``qualifiedCode`` is `entitlements.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case networkFailure, productUnavailable, subscriptionExpired, unknown, purchaseCancelled, notRecognised
    }
}
