import ClearanceWire

/// One frame from the server: `{"event":…,"channel":…,"data":…,"user_id":…}`.
///
/// `data` is usually a *string holding JSON*; ``data`` is that string's content then, or the JSON
/// text of the value when the server sent an object. Decoding it (``dataObject``) is the second
/// decode the protocol needs.
package struct IncomingFrame: Sendable, Hashable {
    /// The event name, e.g. `pusher:connection_established` or an app event.
    package let event: String
    /// The channel, for channel events.
    package let channel: String?
    /// The payload as text: the string's content when `data` was a string, otherwise JSON text.
    package let data: String?
    /// The sender of a client event on a presence channel.
    package let userID: String?
    /// The frame's place in the channel's history (a hub that keeps one): `"stream"` and
    /// `"serial"` on events and on `subscription_succeeded`; nil when either is missing or not
    /// a stream name and a whole number from 0.
    package let position: HistoryPosition?
    /// `"recovered"` on a `subscription_succeeded` that answers a resume.
    package let recovered: Bool?

    init(event: String, channel: String? = nil, data: String? = nil, userID: String? = nil, position: HistoryPosition? = nil, recovered: Bool? = nil) {
        self.event = event
        self.channel = channel
        self.data = data
        self.userID = userID
        self.position = position
        self.recovered = recovered
    }

    /// Parses a text frame.
    /// - Throws: ``FrameError`` when it is not a JSON object with a string `event`.
    package init(parsing text: String) throws(FrameError) {
        guard let object = JSONValue(parsing: text)?.objectValue else { throw .notJSONObject }
        guard let event = object["event"]?.stringValue else { throw .missingEvent }
        self.event = event
        self.channel = object["channel"]?.stringValue
        self.userID = object["user_id"]?.scalarText
        self.position = HistoryPosition(stream: object["stream"], serial: object["serial"])
        if case let .bool(recovered)? = object["recovered"] { self.recovered = recovered } else { self.recovered = nil }
        switch object["data"] {
        case nil, .null?: self.data = nil
        case .string(let string)?: self.data = string
        case let value?: self.data = value.jsonText
        }
    }

    /// ``data`` decoded as a JSON object (the second decode), or nil.
    package var dataObject: [String: JSONValue]? {
        data.flatMap { JSONValue(parsing: $0)?.objectValue }
    }
}
