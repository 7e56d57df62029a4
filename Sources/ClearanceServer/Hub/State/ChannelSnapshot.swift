/// What the HTTP API reports about an occupied channel.
public struct ChannelSnapshot: Sendable, Hashable {
    /// The channel name.
    public let name: String
    /// Connections subscribed to it.
    public let subscriptionCount: Int
    /// Distinct users, for presence channels; `nil` for the others.
    public let userCount: Int?

    /// Creates a snapshot.
    public init(name: String, subscriptionCount: Int, userCount: Int?) {
        self.name = name
        self.subscriptionCount = subscriptionCount
        self.userCount = userCount
    }
}
