import ClearanceChannels
import ClearanceServer
import ClearanceWire
import Foundation

extension FuzzTarget {
    /// A text frame a client sends to the hub (`ClientMessage.parse`).
    ///
    /// Invariants: a client event's `data` is JSON text; the frame the hub relays for it
    /// (`PusherFrame.clientEvent`) is one the client's own frame decoder reads back with the same
    /// event and channel.
    static let hubFrame = FuzzTarget(name: "hub-frame", summary: "ClientMessage.parse (the hub's frame decoder), PusherFrame.clientEvent → IncomingFrame") { data throws(FuzzViolation) in
        let text = String(decoding: data, as: UTF8.self)
        guard case let .clientEvent(name, channel, raw, size)? = try? ClientMessage.parse(text) else { return }
        try FuzzViolation.require(JSONValue(parsing: raw) != nil, "a client event's data is not JSON: \(raw)")
        try FuzzViolation.require(size >= 0 && size <= raw.utf8.count, "a client event's data size \(size) exceeds its text")
        let relayed = PusherFrame.clientEvent(name: name, channel: channel, rawData: raw, userID: "fuzz")
        let frame = try? IncomingFrame(parsing: relayed)
        try FuzzViolation.require(frame?.event == name && frame?.channel == channel && frame?.userID == "fuzz", "the relayed frame does not read back: \(relayed)")
    }
}
