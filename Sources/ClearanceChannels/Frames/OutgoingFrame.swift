/// The frames the client sends, as JSON text.
enum OutgoingFrame {
    static func subscribe(channel: String, auth: String? = nil, channelData: String? = nil) -> String {
        var members = [("channel", FrameJSON.quoted(channel))]
        if let auth { members.append(("auth", FrameJSON.quoted(auth))) }
        if let channelData { members.append(("channel_data", FrameJSON.quoted(channelData))) }
        return event("pusher:subscribe", data: FrameJSON.object(raw: members))
    }

    static func unsubscribe(channel: String) -> String {
        event("pusher:unsubscribe", data: FrameJSON.object(raw: [("channel", FrameJSON.quoted(channel))]))
    }

    static let ping = #"{"event":"pusher:ping","data":{}}"#
    static let pong = #"{"event":"pusher:pong","data":{}}"#

    static func signIn(auth: String, userData: String) -> String {
        event("pusher:signin", data: FrameJSON.object(raw: [("auth", FrameJSON.quoted(auth)), ("user_data", FrameJSON.quoted(userData))]))
    }

    /// A client event; `dataJSON` is JSON text, sent as the value of `data`.
    static func clientEvent(_ name: String, channel: String, dataJSON: String) -> String {
        FrameJSON.object(raw: [("event", FrameJSON.quoted(name)), ("channel", FrameJSON.quoted(channel)), ("data", dataJSON)])
    }

    private static func event(_ name: String, data: String) -> String {
        FrameJSON.object(raw: [("event", FrameJSON.quoted(name)), ("data", data)])
    }
}
