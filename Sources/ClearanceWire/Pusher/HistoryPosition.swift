/// A place in a channel's history on a hub that keeps one (connection recovery, an extension of
/// Pusher protocol 7): the stream, and the serial of an event in it (0 before the first). The hub
/// puts it on events and `subscription_succeeded` (`"stream"`, `"serial"`); a client sends its
/// last one back in `pusher:subscribe` (`"resume"`) to get what it missed.
package struct HistoryPosition: Sendable, Hashable {
    package let stream: String
    package let serial: Int

    package init(stream: String, serial: Int) {
        self.stream = stream
        self.serial = serial
    }

    /// The position JSON members give: a non-empty string `stream` and a whole-number `serial`
    /// from 0; nil for anything else.
    package init?(stream: JSONValue?, serial: JSONValue?) {
        guard case let .string(name)? = stream, !name.isEmpty, case .number? = serial, let number = serial?.intValue, number >= 0 else {
            return nil
        }
        self.init(stream: name, serial: number)
    }
}
