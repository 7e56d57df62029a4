/// The Pusher close and error codes the hub uses.
///
/// 4000–4099: the client should not reconnect unchanged; 4100–4199: reconnect after a backoff;
/// 4200–4299: reconnect at once; 4300–4399: other errors. Every close is preceded by a
/// `pusher:error` frame carrying the same code and ``message``. It is also the error that
/// refuses a connection request.
public enum HubCloseCode: UInt16, Error, Sendable, Hashable, CaseIterable {
    /// 4001: no app has the key in `/app/{key}`.
    case appDoesNotExist = 4001
    /// 4003: the app is disabled.
    case appDisabled = 4003
    /// 4004: the app is at its connection limit.
    case overConnectionQuota = 4004
    /// 4005: the WebSocket path is not `/app/{key}`.
    case pathNotFound = 4005
    /// 4006: the `protocol` query parameter is not a whole number.
    case invalidVersionFormat = 4006
    /// 4007: the protocol version is not 5, 6 or 7.
    case unsupportedProtocolVersion = 4007
    /// 4008: the `protocol` query parameter is missing.
    case noProtocolVersion = 4008
    /// 4009: the connection is unauthorized: it did not sign in within the required time, or the
    /// app terminated the connections of the user it signed in as (sent then with its own reason).
    case unauthorized = 4009
    /// 4100: the hub is at its connection limit.
    case overCapacity = 4100
    /// 4200: the hub is shutting down; reconnect at once (to another node, or when it is back).
    case reconnectImmediately = 4200
    /// 4201: the client did not answer `pusher:ping`.
    case pongNotReceived = 4201
    /// 4202: the client was silent for too long (when the hub does not ping).
    case closedAfterInactivity = 4202
    /// 4301: too many client events; sent as a `pusher:error` code, the connection stays open.
    case clientEventRateLimited = 4301

    /// The explanation sent with the code.
    public var message: String {
        switch self {
        case .appDoesNotExist: "Application does not exist"
        case .appDisabled: "Application disabled"
        case .overConnectionQuota: "Application is over connection quota"
        case .pathNotFound: "Path not found"
        case .invalidVersionFormat: "Invalid version string format"
        case .unsupportedProtocolVersion: "Unsupported protocol version"
        case .noProtocolVersion: "No protocol version supplied"
        case .unauthorized: "Connection not authorized within timeout"
        case .overCapacity: "Over capacity"
        case .reconnectImmediately: "Server is shutting down: reconnect"
        case .pongNotReceived: "Pong reply not received"
        case .closedAfterInactivity: "Closed after inactivity"
        case .clientEventRateLimited: "Client event rejected due to rate limit"
        }
    }
}
