import ClearanceSigning

/// What went wrong with one channel: its ``ChannelSubscriptionState/failed(_:)`` state, or a
/// problem reported on ``Channel/errors`` (a dropped encrypted event, a refused client event).
///
/// ``code`` is stable; ``message`` never contains a signature, token or shared secret.
public enum ChannelError: Error, Sendable, CustomStringConvertible {
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

    /// Stable machine-readable codes (the inner error's code where there is one).
    public var code: String {
        switch self {
        case .authorization(let error): error.code
        case .rejectedByServer(let rejection): rejection.code
        case .invalidChannelName: "channels.invalidChannelName"
        case .decryptionFailed: "channels.decryptionFailed"
        case .clientEventRejected(let reason): "channels.clientEvent.\(reason.rawValue)"
        case .connectionFailed(let error): error.code
        case .unsubscribed: "channels.unsubscribed"
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

    /// A human sentence saying what went wrong. Never contains a secret.
    public var message: String {
        switch self {
        case .authorization(let error): error.message
        case .rejectedByServer(let rejection): rejection.message
        case .invalidChannelName(let error): error.message
        case .decryptionFailed(let event, let reason): "The encrypted event \"\(event)\" was dropped: \(reason)."
        case .clientEventRejected(let reason): "The client event was not sent: \(reason.message)."
        case .connectionFailed(let error): error.message
        case .unsubscribed: "The channel was unsubscribed."
        }
    }

    public var description: String { "\(code): \(message)" }
}
