/// A client mistake that the hub answers with a `pusher:error` frame, keeping the connection open.
///
/// Only ``clientEventRateLimited`` carries a protocol code (4301); the others are sent with
/// `"code": null`, as hosted Pusher does. Messages never echo client-supplied values.
package enum HubProtocolError: Error, Sendable, Equatable {
    case invalidJSON
    case notAnObject
    case binaryMessage
    case missingEvent
    case missingField(String)
    case invalidField(String)
    case unsupportedEvent
    case clientEventsDisabled
    case clientEventNotSubscribed
    case clientEventNotAllowed
    case clientEventOnEncryptedChannel
    case eventTooLarge(limit: Int)
    case clientEventRateLimited
    case signInFailed(String)
    /// A `pusher:subscribe`'s `resume` that is not a position of a channel's history.
    case invalidResume

    /// The `code` member: 4301 for rate limiting, else `nil`.
    var code: Int? {
        self == .clientEventRateLimited ? Int(HubCloseCode.clientEventRateLimited.rawValue) : nil
    }

    var message: String {
        switch self {
        case .invalidJSON: "Invalid JSON: every frame must be a JSON object with an event name."
        case .notAnObject: "Invalid frame: expected a JSON object."
        case .binaryMessage: "Binary frames are not supported: send JSON text."
        case .missingEvent: "Invalid frame: 'event' must be a string."
        case let .missingField(name): "Invalid frame: '\(name)' is required."
        case let .invalidField(name): "Invalid frame: '\(name)' has the wrong type."
        case .unsupportedEvent: "Unsupported event: client events must start with 'client-'."
        case .clientEventsDisabled: "Client events are disabled for this app."
        case .clientEventNotSubscribed: "Client events can only be sent on channels this connection is subscribed to."
        case .clientEventNotAllowed: "Client events are only allowed on private and presence channels."
        case .clientEventOnEncryptedChannel: "Client events are not allowed on encrypted channels."
        case let .eventTooLarge(limit): "Event data is too large: the limit is \(limit) bytes."
        case .clientEventRateLimited: HubCloseCode.clientEventRateLimited.message
        case let .signInFailed(reason): "Sign-in failed: \(reason)"
        case .invalidResume:
            "Invalid frame: 'resume' must be {\"stream\": the stream's name, \"serial\": a whole number from 0} (the last position the client had)."
        }
    }
}
