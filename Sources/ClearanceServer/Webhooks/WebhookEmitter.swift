/// Where webhook events are handed in: the hub's one entry point, given to the channel-state
/// adapter (``ChannelStateAdapter/attachWebhooks(_:)``) for the events it decides.
///
/// ``emit(appID:_:)`` never blocks: it only appends to a queue.
public protocol WebhookEmitter: Sendable {
    /// Queues `event` of app `appID` for every target of the app that wants it (none: nothing
    /// happens).
    func emit(appID: String, _ event: WebhookEvent)

    /// Whether a target of app `appID` wants events of `kind` (an adapter need not decide what
    /// nobody wants: a cluster's occupancy costs a database transaction per change).
    func wants(_ kind: WebhookEventKind, appID: String) -> Bool
}
