import ClearanceWire

/// Who a caller is in the realtime world: the presence member, or the signed-in user.
public struct AuthorizedUser: Sendable, Hashable {
    /// Presence `user_id` and sign-in `id`. Non-empty, at most 128 characters.
    public let id: String
    /// Presence `user_info` and sign-in `user_info`, if any (a JSON object is usual).
    public let info: JSONValue?

    /// Creates a user.
    public init(id: String, info: JSONValue? = nil) {
        self.id = id
        self.info = info
    }

    /// The presence `channel_data`: `{"user_id":…,"user_info":…}` (`user_info` only when set).
    public var channelDataJSON: String {
        var writer = JSONWriter()
        writer.string("user_id", id)
        if let info { writer.raw("user_info", info.jsonText) }
        return writer.text
    }

    /// The sign-in `user_data`: `{"id":…,"user_info":…}` (`user_info` only when set).
    public var userDataJSON: String {
        var writer = JSONWriter()
        writer.string("id", id)
        if let info { writer.raw("user_info", info.jsonText) }
        return writer.text
    }
}
