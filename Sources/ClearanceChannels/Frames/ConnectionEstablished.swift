import ClearanceSigning

/// `pusher:connection_established` data: `{"socket_id":"123.456","activity_timeout":120}`.
package struct ConnectionEstablished: Sendable, Hashable {
    package let socketID: String
    package let activityTimeout: Int?

    /// Reads the frame's data; nil when the socket id is missing or not `^\d+\.\d+$`.
    package init?(_ frame: IncomingFrame) {
        guard let object = frame.dataObject, let socketID = object["socket_id"]?.scalarText,
              SocketIDFormat.isValid(socketID)
        else { return nil }
        self.socketID = socketID
        self.activityTimeout = object["activity_timeout"]?.intValue
    }
}
