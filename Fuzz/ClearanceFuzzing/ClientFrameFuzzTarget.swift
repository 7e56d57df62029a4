import ClearanceChannels
import ClearanceSigning
import ClearanceWire
import Foundation

extension FuzzTarget {
    /// A text frame from a (possibly hostile) server to the channel client: `IncomingFrame`, its
    /// second decode (`dataObject`) and `pusher:connection_established`.
    ///
    /// Invariants: an accepted socket id has the `^\d+\.\d+$` shape; a frame's `data` that was an
    /// object is kept as JSON text that parses again.
    static let clientFrame = FuzzTarget(name: "client-frame", summary: "IncomingFrame(parsing:), dataObject, ConnectionEstablished") { data throws(FuzzViolation) in
        let text = String(decoding: data, as: UTF8.self)
        guard let frame = try? IncomingFrame(parsing: text) else { return }
        _ = frame.dataObject
        if let established = ConnectionEstablished(frame) {
            try FuzzViolation.require(SocketIDFormat.isValid(established.socketID), "accepted socket id \(established.socketID)")
        }
        if let raw = JSONValue(parsing: text)?["data"], raw.stringValue == nil, raw != .null {
            try FuzzViolation.require(frame.data.flatMap { JSONValue(parsing: $0) } == raw, "an object's data does not parse back")
        }
    }
}
