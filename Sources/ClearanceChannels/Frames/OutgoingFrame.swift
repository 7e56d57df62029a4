import ClearanceWire

/// The frames the client sends, as JSON text.
enum OutgoingFrame {
    /// `pusher:subscribe`; with `resume`, the last position the client has of the channel's
    /// history (`"resume": {"stream": …, "serial": N}`: a hub that keeps it sends what came since).
    static func subscribe(channel: String, auth: String? = nil, channelData: String? = nil, resume: HistoryPosition? = nil) -> String {
        event("pusher:subscribe") { data in
            data.string("channel", channel)
            data.optionalString("auth", auth)
            data.optionalString("channel_data", channelData)
            if let resume {
                data.object("resume") { position in
                    position.string("stream", resume.stream)
                    position.integer("serial", resume.serial)
                }
            }
        }
    }

    static func unsubscribe(channel: String) -> String {
        event("pusher:unsubscribe") { $0.string("channel", channel) }
    }

    static let ping = #"{"event":"pusher:ping","data":{}}"#
    static let pong = #"{"event":"pusher:pong","data":{}}"#

    static func signIn(auth: String, userData: String) -> String {
        event("pusher:signin") { data in
            data.string("auth", auth)
            data.string("user_data", userData)
        }
    }

    /// A client event; `dataJSON` is JSON text, sent as the value of `data`.
    static func clientEvent(_ name: String, channel: String, dataJSON: String) -> String {
        var frame = JSONWriter()
        frame.string("event", name)
        frame.string("channel", channel)
        frame.raw("data", dataJSON)
        return frame.text
    }

    private static func event(_ name: String, data: (inout JSONWriter) -> Void) -> String {
        var frame = JSONWriter()
        frame.string("event", name)
        frame.object("data", data)
        return frame.text
    }
}
