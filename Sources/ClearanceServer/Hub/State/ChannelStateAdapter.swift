import ClearanceSigning

/// Where the hub keeps who is connected, who is subscribed to what and who is present, and how
/// a frame reaches every subscriber of a channel.
///
/// The protocol code (``HubServer`` and its connections) talks only to this protocol, so a
/// multi-node implementation (sharing state and relaying publishes through Redis, NATS, …) can
/// replace ``InMemoryChannelState`` without touching it. Implementations must:
/// - deliver to each connection in the order of their own calls (a subscriber never sees a
///   channel's `member_added` before its own `subscription_succeeded`);
/// - count presence members per user: a user's second connection is no new member, and the user
///   leaves only when their last connection does;
/// - never wait on a slow connection (``ConnectionOutbox/deliver(_:)`` does not block).
public protocol ChannelStateAdapter: Sendable {
    /// Runs whatever the adapter needs while the hub runs (a cluster node's link to the
    /// others), from before the hub accepts connections until ``shutdown()``. The default
    /// returns at once.
    func run() async throws

    /// Called once the hub's connections are closed, when it stops: ends ``run()`` (a cluster
    /// node tells the others it leaves). The default does nothing.
    func shutdown() async

    /// Hands the adapter the hub's webhook entry point, once, before ``run()``: the adapter emits
    /// through it the events its state decides, `channel_occupied` and `channel_vacated` (for the
    /// whole cluster, once), `member_added` and `member_removed` (a user's first connection in a
    /// presence channel, and their last). No default: an adapter that ignored it would lose them.
    func attachWebhooks(_ emitter: any WebhookEmitter) async

    /// Where the hub's webhook events wait for delivery, when the adapter keeps them (a cluster:
    /// in its database, so that another node delivers what a dead one queued); `nil` (the
    /// default) keeps them in the hub's memory. Called once, when the hub starts.
    func webhookQueue(limits: HubLimits) -> (any WebhookQueue)?

    /// Registers a new connection of `appID` and the outbox that reaches it.
    func addConnection(socketID: String, appID: String, outbox: ConnectionOutbox) async

    /// Removes a connection from every channel, delivering `member_removed` to the remaining
    /// subscribers of each presence channel the user has left for good.
    func removeConnection(socketID: String, appID: String) async

    /// Subscribes a registered connection to `channel` (already authorized by the caller).
    ///
    /// On success delivers `subscription_succeeded` to the connection (with the member list,
    /// including `member`, for presence channels), then `member_added` to the channel's other
    /// subscribers when `member` is a user not yet present. `member` is the presence member, for
    /// presence channels (`nil` for the others); `maxPresenceMembers` is the most distinct users
    /// the presence channel may hold.
    func subscribe(
        socketID: String,
        appID: String,
        channel: String,
        member: PresenceMember?,
        maxPresenceMembers: Int
    ) async -> SubscribeOutcome

    /// Unsubscribes a connection; delivers `member_removed` when it was the user's last
    /// connection in a presence channel. Unknown subscriptions are ignored.
    func unsubscribe(socketID: String, appID: String, channel: String) async

    /// The registered connection signed in as `userID` (after its `pusher:signin_success`),
    /// watching `watchlist` (at most 100 user ids, checked by the hub). Implementations must:
    /// deliver to it one `pusher_internal:watchlist_events` frame with an `online` event listing
    /// the watched users online now (none: no frame); tell every watcher of `userID`, on every
    /// node, `online` when this is the user's first connection anywhere; and, when the
    /// connection is removed, tell them `offline` when it was the user's last anywhere (a user
    /// with a connection on another node, or on a node that is restarting, is not offline).
    /// Watchers are found by the watched id, never by a scan of the connections.
    func signIn(socketID: String, appID: String, userID: String, watchlist: [String]) async

    /// Which apps' channels tell their subscribers their subscription count (the apps with
    /// ``HubAppConfiguration/subscriptionCount``): set when the hub starts and on every reload.
    func countSubscriptions(ofApps appIDs: Set<String>) async

    /// Sends what is due of `pusher_internal:subscription_count`: to this node's subscribers of
    /// every non-presence channel of a counted app whose number of subscribers across the
    /// cluster changed, at most once per channel per second and once after its last change; and
    /// emits the `subscription_count` webhook for the channels this node changed. The hub calls
    /// it several times a second while an app counts.
    func flushSubscriptionCounts() async

    /// Delivers `frame` to every subscriber of `channel` except `excludedSocketID`.
    func publish(appID: String, channel: String, frame: String, excluding excludedSocketID: String?) async

    /// Delivers an event triggered through the HTTP API as ``publish(appID:channel:frame:excluding:)``
    /// does and, on a cache channel, keeps it under `cache` as the channel's last event: a new
    /// subscriber then gets it right after `subscription_succeeded` (or `pusher:cache_miss` when
    /// there is none, and ``subscribe(socketID:appID:channel:member:maxPresenceMembers:)`` returns
    /// ``SubscribeOutcome/subscribedWithoutCachedEvent``). The default only publishes: an adapter
    /// that keeps no cache.
    func trigger(appID: String, channel: String, frame: String, excluding excludedSocketID: String?, cache: EventCachePolicy) async

    /// The app's occupied channels.
    func channels(appID: String) async -> [ChannelSnapshot]

    /// One channel, or `nil` when nobody is subscribed to it.
    func channel(appID: String, name: String) async -> ChannelSnapshot?

    /// The distinct users of a presence channel, in the order they arrived.
    func presenceMembers(appID: String, channel: String) async -> [PresenceMember]

    /// Asks the other nodes of the cluster to close their connections of the termination's app
    /// signed in as its user (this node closes its own), and to refuse that user for its grace
    /// period. Each of them hands it to its hub through ``userTerminations``, also a node that
    /// was away when it was asked (the termination is state for the grace period, not a message).
    /// The default does nothing: a single node has no other.
    func relayUserTermination(_ termination: UserTermination) async

    /// The terminations other nodes relayed, for this node's hub to carry out (one consumer: the
    /// hub). The default is an empty stream.
    var userTerminations: AsyncStream<UserTermination> { get }
}

extension ChannelStateAdapter {
    /// Nothing to run: state kept in this process needs no background work.
    public func run() async throws {}

    /// Nothing to stop.
    public func shutdown() async {}

    /// Keeps nothing: publishes.
    public func trigger(appID: String, channel: String, frame: String, excluding excludedSocketID: String?, cache: EventCachePolicy) async {
        await publish(appID: appID, channel: channel, frame: frame, excluding: excludedSocketID)
    }

    /// No other node to tell.
    public func relayUserTermination(_ termination: UserTermination) async {}

    /// No other node: nothing ever arrives.
    public var userTerminations: AsyncStream<UserTermination> { AsyncStream { $0.finish() } }
    /// The hub's memory.
    public func webhookQueue(limits: HubLimits) -> (any WebhookQueue)? { nil }
}
