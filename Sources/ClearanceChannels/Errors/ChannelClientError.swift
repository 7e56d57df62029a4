import Clearance

/// Why a ``ChannelClient``'s connection failed or was lost.
///
/// Every case has a stable ``code``, a human ``message`` and, where there is one, the
/// ``underlying`` error. Messages never contain a signature, a token or a shared secret: text that
/// comes from a server or an underlying error is passed through `Redactor` first.
public enum ChannelClientError: ClearanceError {
    /// The server closed the connection with a Pusher close code (4000–4399) and a reason.
    ///
    /// 4009 (unauthorized) is final: the connection neither signed in nor subscribed to a
    /// private or presence channel within the server's timeout (its reason then says
    /// "Connection not authorized within timeout"), or the app ended the signed-in user's
    /// connections. The client does not reconnect, as for every code 4000–4099.
    case closedByServer(code: UInt16, reason: String)
    /// The WebSocket could not be opened or broke (DNS, refused, TLS, upgrade refused, reset).
    case transport(underlying: any Error)
    /// The server sent no `pusher:connection_established` in time, or nothing at all for longer
    /// than the activity timeout plus the pong timeout.
    case timedOut(reason: String)
    /// The server broke the protocol (for example an unusable `pusher:connection_established`).
    case protocolViolation(reason: String)
    /// The options cannot work (an empty key, a host that is not a host, …).
    case invalidOptions(reason: String)
    /// An operation needs a connection and there is none.
    case notConnected

    public static let codeDomain = "channels.connection"

    /// The Pusher close code, for ``closedByServer(code:reason:)``.
    public var closeCode: UInt16? {
        if case .closedByServer(let code, _) = self { return code }
        return nil
    }

    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        if case .transport(let error) = self { return error }
        return nil
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .closedByServer(let code, let reason): .init(.closedByServer, Self.closeSentence(code: code, reason: Redactor.scrub(reason)) + ".")
        case .transport(let error): .init(.transport, "The WebSocket connection failed: \(Redactor.describe(error)).")
        case .timedOut(let reason): .init(.timedOut, "The connection timed out: \(reason).")
        case .protocolViolation(let reason): .init(.protocolViolation, "The server broke the Pusher protocol: \(Redactor.scrub(reason)).")
        case .invalidOptions(let reason): .init(.invalidOptions, "The client options cannot work: \(reason).")
        case .notConnected: .init(.notConnected, "The client is not connected.")
        }
    }

    /// "The server closed the connection …" for `code`, with `reason` (already redacted) kept.
    /// 4009 says what it means, and what it most often means when the server gave no reason.
    static func closeSentence(code: UInt16, reason: String) -> String {
        guard code == 4009 else {
            return "The server closed the connection with code \(code)\(reason.isEmpty ? "" : ": \(reason)")"
        }
        let why = reason.isEmpty
            ? "not authorized within timeout (neither signed in nor subscribed to a private or presence channel in time), or the app ended the user's connections"
            : reason
        return "The server closed the connection as not authorized (code 4009, not reconnecting): \(why)"
    }

    /// Whether `other` is the same failure: the same code and close code (the underlying
    /// errors and messages are not compared).
    public func isSameFailure(as other: ChannelClientError) -> Bool {
        code == other.code && closeCode == other.closeCode
    }

    /// Stable machine-readable codes, one per failure; ``qualifiedCode`` is `channels.connection.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case closedByServer, transport, timedOut, protocolViolation, invalidOptions, notConnected
    }
}
