/// An app's request to close every connection signed in as one of its users
/// (`POST /apps/{app_id}/users/{user_id}/terminate_connections`), as it travels between the nodes
/// of a cluster.
public struct UserTermination: Sendable, Hashable {
    /// The app whose connections are closed.
    public let appID: String
    /// The user they signed in as (`pusher:signin`).
    public let userID: String

    /// A termination of `userID`'s connections of `appID`.
    public init(appID: String, userID: String) {
        self.appID = appID
        self.userID = userID
    }
}
