import ClearanceSigning

/// `pusher:connection_established` data: `{"socket_id":"123.456","activity_timeout":120}`.
struct ConnectionEstablished: Sendable, Hashable {
    let socketID: String
    let activityTimeout: Int?

    /// Reads the frame's data; nil when the socket id is missing or not `^\d+\.\d+$`.
    init?(_ frame: IncomingFrame) {
        guard let object = frame.dataObject, let socketID = FrameJSON.string(object["socket_id"]),
              SocketIDFormat.isValid(socketID)
        else { return nil }
        self.socketID = socketID
        self.activityTimeout = FrameJSON.int(object["activity_timeout"])
    }
}
