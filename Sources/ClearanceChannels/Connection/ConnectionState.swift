/// Where a ``ChannelClient``'s connection stands, as published by ``ChannelClient/states``.
///
/// The values follow pusher-js's connection states:
/// `initialized → connecting → connected(socketID) → (unavailable → connecting …) → disconnected`,
/// with `failed` when the server refused the connection for good (close codes 4000–4099) or the
/// options cannot work.
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Created, ``ChannelClient/connect()`` not called yet.
    case initialized
    /// Opening the WebSocket, or waiting for `pusher:connection_established`.
    case connecting
    /// Established; `socketID` is the id the server gave this connection (it changes on every reconnect).
    case connected(socketID: String)
    /// The connection was lost; the client retries after a back-off.
    case unavailable
    /// ``ChannelClient/disconnect()`` was called; nothing is retried.
    case disconnected
    /// The server refused the connection for good, or the options cannot work; nothing is retried.
    case failed(ChannelClientError)

    /// The socket id while connected, otherwise nil.
    public var socketID: String? {
        if case .connected(let socketID) = self { return socketID }
        return nil
    }

    /// True only in ``connected(socketID:)``.
    public var isConnected: Bool { socketID != nil }

    /// True in the states the client never leaves by itself (``disconnected`` and ``failed(_:)``).
    public var isTerminal: Bool {
        switch self {
        case .disconnected, .failed: true
        default: false
        }
    }

    /// Equal when the states are the same; two failed states are equal when their errors have
    /// the same code and close code (errors themselves are not compared).
    public static func == (lhs: ConnectionState, rhs: ConnectionState) -> Bool {
        switch (lhs, rhs) {
        case (.initialized, .initialized), (.connecting, .connecting), (.unavailable, .unavailable), (.disconnected, .disconnected):
            true
        case (.connected(let a), .connected(let b)):
            a == b
        case (.failed(let a), .failed(let b)):
            a.isSameFailure(as: b)
        default:
            false
        }
    }

    public var description: String {
        switch self {
        case .initialized: "initialized"
        case .connecting: "connecting"
        case .connected(let socketID): "connected(\(socketID))"
        case .unavailable: "unavailable"
        case .disconnected: "disconnected"
        case .failed(let error): "failed(\(error.qualifiedCode))"
        }
    }
}
