/// A user in a presence channel: the `user_id` and `user_info` of the `channel_data` the
/// member subscribed with.
public struct PresenceMember: Sendable, Hashable {
    /// The user id (numbers arrive as their JSON text).
    public let userID: String
    /// The `user_info` JSON text exactly as signed, or `nil` when there was none.
    public let userInfoJSON: String?

    /// Creates a member.
    public init(userID: String, userInfoJSON: String?) {
        self.userID = userID
        self.userInfoJSON = userInfoJSON
    }
}
