/// Why a connection ended, as the reconnect logic sees it.
public enum DisconnectCause: Sendable, CustomStringConvertible {
    /// The server sent a WebSocket close frame with this code and reason.
    case closed(code: UInt16, reason: String)
    /// The socket broke or never opened.
    case transport(any Error)
    /// No `pusher:connection_established`, or no `pusher:pong`, in time.
    case timedOut(String)
    /// The server sent something the client cannot work with.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .closed(let code, let reason): "closed(\(code)\(reason.isEmpty ? "" : ", \(reason)"))"
        case .transport(let error): "transport(\(error))"
        case .timedOut(let reason): "timedOut(\(reason))"
        case .protocolViolation(let reason): "protocolViolation(\(reason))"
        }
    }

    /// A close with 4200–4299: the server is restarting (or missed a pong) and wants the client
    /// back soon.
    var isPlannedRestart: Bool {
        if case .closed(let code, _) = self { return (4200...4299).contains(code) }
        return false
    }

    /// The error this cause becomes when it ends the connection for good.
    var error: ChannelClientError {
        switch self {
        case .closed(let code, let reason): .closedByServer(code: code, reason: reason)
        case .transport(let error): .transport(underlying: error)
        case .timedOut(let reason): .timedOut(reason: reason)
        case .protocolViolation(let reason): .protocolViolation(reason: reason)
        }
    }
}
