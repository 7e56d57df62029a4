import Clearance
import ClearanceSigning

/// What went wrong with one channel: its ``ChannelSubscriptionState/failed(_:)`` state, or a
/// problem reported on ``PusherChannel/errors`` (a dropped encrypted event, a refused client event).
///
/// ``qualifiedCode`` is the inner error's where there is one (`channels.auth.httpStatus`,
/// `channels.server.subscriptionError`, `channels.connection.closedByServer`), otherwise
/// `channels.<code>`; ``message`` never contains a signature, token or shared secret.
public enum ChannelError: ClearanceError {
    /// The channel's authorizer failed (HTTP status, bad body, transport, timeout, denial, …).
    case authorization(ChannelAuthorizationError)
    /// The server refused the subscription or sign-in itself.
    case rejectedByServer(ServerRejection)
    /// The channel name is not valid.
    case invalidChannelName(SigningError)
    /// An encrypted event could not be decrypted, even after re-authorizing once; it was dropped.
    case decryptionFailed(event: String, reason: String)
    /// A client event was not sent.
    case clientEventRejected(ClientEventRejection)
    /// The connection failed for good while the channel waited.
    case connectionFailed(ChannelClientError)
    /// The channel was unsubscribed while something waited for it.
    case unsubscribed

    public static let codeDomain = "channels"

    /// The inner error's qualified code where there is one, else `channels.<code>`
    /// (`channels.clientEvent.<reason>` for a refused client event).
    public var qualifiedCode: String {
        switch self {
        case .authorization(let error): error.qualifiedCode
        case .rejectedByServer(let rejection): rejection.qualifiedCode
        case .connectionFailed(let error): error.qualifiedCode
        case .clientEventRejected(let reason): "channels.clientEvent.\(reason.rawValue)"
        default: "channels.\(code.rawValue)"
        }
    }

    /// The inner error, where there is one.
    public var underlying: (any Error)? {
        switch self {
        case .authorization(let error): error
        case .rejectedByServer(let rejection): rejection
        case .invalidChannelName(let error): error
        case .connectionFailed(let error): error
        default: nil
        }
    }

    /// The HTTP status or server status, when one was given.
    public var status: Int? {
        switch self {
        case .authorization(let error): error.status
        case .rejectedByServer(let rejection): rejection.status
        default: nil
        }
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .authorization(let error): .init(.authorization, error.message)
        case .rejectedByServer(let rejection): .init(.rejectedByServer, rejection.message)
        case .invalidChannelName(let error): .init(.invalidChannelName, error.message)
        case .decryptionFailed(let event, let reason): .init(.decryptionFailed, "The encrypted event \"\(event)\" was dropped: \(reason).")
        case .clientEventRejected(let reason): .init(.clientEventRejected, "The client event was not sent: \(reason.message).")
        case .connectionFailed(let error): .init(.connectionFailed, error.message)
        case .unsubscribed: .init(.unsubscribed, "The channel was unsubscribed.")
        }
    }

    /// Stable machine-readable codes, one per case.
    public enum Code: String, Sendable, CaseIterable {
        case authorization, rejectedByServer, invalidChannelName, decryptionFailed, clientEventRejected, connectionFailed, unsubscribed
    }
}
