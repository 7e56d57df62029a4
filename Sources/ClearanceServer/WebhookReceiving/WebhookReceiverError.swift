import Clearance

/// Why a received webhook was refused. Messages never contain the body, the signature or a secret.
public enum WebhookReceiverError: ClearanceError, Equatable {
    /// `X-Pusher-Key` or `X-Pusher-Signature` is missing (answered 401).
    case missingHeaders
    /// The key is not the app's, or the signature does not match the body (answered 401).
    case invalidSignature
    /// The body is larger than the receiver reads (answered 413).
    case bodyTooLarge(limit: Int)
    /// The signed body is not a webhook: not JSON, no `time_ms`, an unknown event (answered 400).
    case malformedBody(reason: String)
    /// `time_ms` is further from now than the receiver allows: a replay, or clocks apart (answered 401).
    case stale(ageSeconds: Int)

    public static let codeDomain = "webhook"

    /// The HTTP status the receiver answers with.
    public var status: Int {
        switch self {
        case .missingHeaders, .invalidSignature, .stale: 401
        case .bodyTooLarge: 413
        case .malformedBody: 400
        }
    }

    /// Each case's code and message.
    public var summary: ErrorSummary<Code> {
        switch self {
        case .missingHeaders: .init(.missingHeaders, "The webhook carries no X-Pusher-Key or X-Pusher-Signature header.")
        case .invalidSignature: .init(.invalidSignature, "The webhook's key or signature does not match (another app, another secret, or a forgery).")
        case let .bodyTooLarge(limit): .init(.bodyTooLarge, "The webhook's body is larger than \(limit) bytes.")
        case let .malformedBody(reason): .init(.malformedBody, "The webhook's body is not usable: \(reason).")
        case let .stale(age): .init(.stale, "The webhook was made \(age) s from now, more than allowed (a replay, or clocks apart).")
        }
    }

    /// Stable codes; ``qualifiedCode`` is `webhook.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case missingHeaders, invalidSignature, bodyTooLarge, malformedBody, stale
    }
}
