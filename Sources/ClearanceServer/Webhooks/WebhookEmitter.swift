/// Where webhook events are handed in: the hub's one entry point, given to the channel-state
/// channel state and, on a cluster, its ``ClusterOccupancy``, for the events they decide.
///
/// ``emit(appID:_:)`` never blocks: it only appends to a queue.
public protocol WebhookEmitter: Sendable {
    /// Queues `event` of app `appID` for every target of the app that wants it (none: nothing
    /// happens).
    func emit(appID: String, _ event: WebhookEvent)

    /// Whether a target of app `appID` wants events of `kind` (a cluster need not decide what
    /// nobody wants: a cluster's occupancy costs a database transaction per change).
    func wants(_ kind: WebhookEventKind, appID: String) -> Bool
}
