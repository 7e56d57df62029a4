/// An app's request to close every connection signed in as one of its users
/// (`POST /apps/{app_id}/users/{user_id}/terminate_connections`), as it travels between the nodes
/// of a cluster.
public struct UserTermination: Sendable, Hashable {
    /// The app whose connections are closed.
    public let appID: String
    /// The user they signed in as (`pusher:signin`).
    public let userID: String
    /// Seconds during which the user may not sign in again (``HubConnectionLimits/terminationGracePeriod``
    /// of the node that was asked).
    public let gracePeriod: Double

    /// A termination of `userID`'s connections of `appID`, with its grace period in seconds.
    public init(appID: String, userID: String, gracePeriod: Double = 60) {
        self.appID = appID
        self.userID = userID
        self.gracePeriod = gracePeriod
    }
}
