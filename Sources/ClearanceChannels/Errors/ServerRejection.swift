import Clearance

/// How the server itself refused a subscription or sign-in. Servers differ, so each shape is its
/// own case, with everything the server said kept.
///
/// ``message`` redacts the server's text: some servers echo the expected signature.
public enum ServerRejection: ClearanceError, Hashable {
    /// `pusher:error` `{"message":…,"code":…}`: hosted Pusher and poxa ("Invalid signature: …"),
    /// Reverb (code 4009).
    case pusherError(code: Int?, message: String)
    /// soketi's `pusher:subscription_error` `{"type":…,"error":…,"status":…}`.
    case subscriptionError(type: String?, error: String?, status: Int?)
    /// The server closed the connection with this code (4009: unauthorized) while the channel waited.
    case connectionClosed(code: UInt16, reason: String)

    public static let codeDomain = "channels.server"

    /// The status or Pusher code the server gave, if any.
    public var status: Int? {
        switch self {
        case .pusherError(let code, _): code
        case .subscriptionError(_, _, let status): status
        case .connectionClosed(let code, _): Int(code)
        }
    }

    /// Each case's code and message (server text is redacted: some servers echo the expected signature).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .pusherError(let code, let message): .init(.pusherError, "The server refused\(code.map { " (code \($0))" } ?? ""): \(Self.scrubbed(message))")
        case .subscriptionError(let type, let error, let status):
            .init(.subscriptionError, "The server refused the subscription\(status.map { " (status \($0))" } ?? "")\(type.map { " [\($0)]" } ?? ""): \(Self.scrubbed(error ?? "no reason given"))")
        case .connectionClosed(let code, let reason): .init(.connectionClosed, ChannelClientError.closeSentence(code: code, reason: Self.scrubbed(reason)))
        }
    }


    /// Pusher's "Invalid signature: Expected HMAC SHA256 hex digest of …, but got KEY:SIG" quotes
    /// the signature it got: mask anything hex-looking of signature length.
    static func scrubbed(_ text: String) -> String {
        var result = Redactor.scrub(text)
        if let expression = try? Regex(#"[0-9a-fA-F]{32,}"#) {
            result = result.replacing(expression, with: Redactor.mask)
        }
        return result
    }

    /// Stable machine-readable codes, one per failure; ``qualifiedCode`` is `channels.server.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case pusherError, subscriptionError, connectionClosed
    }
}
