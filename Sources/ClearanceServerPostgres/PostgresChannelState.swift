import Clearance
import ClearanceServer
import ClearanceSigning
import Foundation
import Logging

/// Channel state shared by a cluster of hubs through PostgreSQL: run one hub per node, each
/// with its own `PostgresChannelState` on the same database, behind a load balancer.
///
/// ```swift
/// let key = try BackplaneClusterKey(secret: clusterSecret)  // the same on every node
/// let state = PostgresChannelState(configuration: try PostgresBackplaneConfiguration(url: "postgres://clearance@db:5432/clearance", clusterKey: key))
/// let hub = HubService(configuration: configuration, adapter: state)
/// ```
///
/// What the cluster guarantees (soketi's horizontal adapter, on PostgreSQL):
/// - an event published through any node's HTTP API reaches the channel's subscribers on every
///   node once; a client event reaches the other nodes' subscribers, never its sender;
/// - presence spans the nodes: `subscription_succeeded` lists every node's members,
///   `member_added`/`member_removed` are told on every node (once per user, not per
///   connection), and the channel API's counts, `user_count` and users list add up every node;
/// - a node that stops says goodbye and its members leave at once; a node that dies without a
///   word stops its heartbeats, and the others remove its members within
///   ``PostgresBackplaneConfiguration/nodeTimeout`` plus a heartbeat interval (20 s by default);
/// - a node that loses the database keeps serving its own connections, reconnects every
///   ``PostgresBackplaneConfiguration/reconnectDelay``, and then exchanges its whole state with
///   the others again; events published while the link was down do not cross (as with Redis
///   pub/sub);
/// - a node whose unsent messages overflow (a database that does not keep up: more than
///   ``PostgresBackplaneConfiguration/queueLimit`` queued, 100,000 by default) drops the newest and
///   logs `backplane.queue.full`; once it has caught up it
///   sends its whole state again (`backplane.resync`), so the others' counts and rosters heal
///   without a reconnect (the dropped events are lost);
/// - notifications carry events up to PostgreSQL's NOTIFY limit (8,000 bytes); longer payloads go
///   through a table, the notification carrying their id;
/// - every notification and stored payload is sealed with the cluster key (ChaChaPoly, the key
///   derived with HKDF from ``PostgresBackplaneConfiguration/clusterKey``; the namespace, the
///   sending node and a sequence number bound to it): a database role without the key reads
///   nothing of it, and what it forges or replays is dropped, logged
///   (`backplane.message.rejected`) and never applied.
public actor PostgresChannelState: ChannelStateAdapter {
    /// This node's id in the cluster (new for every process).
    public nonisolated let nodeID: String
    /// The database and timings.
    public nonisolated let configuration: PostgresBackplaneConfiguration
    private let logger: Logger
    nonisolated let queue: BackplaneQueue

    /// Messages this node dropped because its queue of unsent messages was full, in all, and
    /// each app's events dropped at the app's part of the queue (`clearance serve` exports them:
    /// `clearance_backplane_dropped_total`, `clearance_app_refused_total{app_id,what="backplane"}`).
    public nonisolated var droppedMessages: HubMetrics.BackplaneDrops {
        let drops = queue.drops
        return HubMetrics.BackplaneDrops(total: drops.total, byApp: drops.byApp)
    }
    private let link: BackplaneLink
    private var table = ChannelTable()
    /// The state a node is sending between `sync-begin` and `sync-end`.
    private var incomingSync: [String: ChannelTable.NodeState] = [:]
    private var lastHeard: [String: ContinuousClock.Instant] = [:]
    /// How many cache channels this node keeps: the hub's policy, learnt from its triggers
    /// (until the first, the defaults of `HubLimits`).
    private var cachePolicy: EventCachePolicy = {
        let limits = HubLimits()
        return EventCachePolicy(ttl: .seconds(limits.cacheTTL), maxChannels: limits.maxCachedChannels)
    }()
    /// Where the terminations other nodes relay go: the stream the hub reads last.
    private let terminations: Locked<AsyncStream<UserTermination>.Continuation?>
    private var webhooks: (any WebhookEmitter)?
    /// The channels this node has subscribers of, for the apps whose webhooks want occupancy.
    private var occupiedHere: Set<ChannelTable.Key> = []
    nonisolated let occupancy: ClusterOccupancy
    /// The cluster's terminations, kept in the database for their grace period.
    nonisolated let clusterTerminations: ClusterTerminations
    private nonisolated let webhookQueues = Locked([PostgresWebhookQueue]())

    /// A node of the cluster that `configuration` names. Nothing happens until the hub runs it.
    ///
    /// Its queue of unsent messages (`configuration.queueLimit`, 100,000 by default) gives each
    /// app's events at most its part (`appShare` of `limits` when the hub serves `apps` apps, as
    /// it starts).
    public init(
        configuration: PostgresBackplaneConfiguration, logger: Logger = Logger(label: "clearance.backplane"),
        limits: HubLimits = HubLimits(), apps: Int = 1
    ) {
        let queueLimit = configuration.queueLimit
        self.init(configuration: configuration, queueLimit: queueLimit, perAppLimit: limits.appPart(of: queueLimit, apps: apps), logger: logger)
    }

    /// A node whose queue of unsent messages holds at most `queueLimit`, `perAppLimit` of one
    /// app's events (tests use small ones).
    init(configuration: PostgresBackplaneConfiguration, queueLimit: Int, perAppLimit: Int? = nil, logger: Logger) {
        let nodeID = UUID().uuidString.lowercased()
        let queue = BackplaneQueue(limit: queueLimit, perAppLimit: perAppLimit, logger: logger)
        self.nodeID = nodeID
        self.configuration = configuration
        self.logger = logger
        self.queue = queue
        link = BackplaneLink(configuration: configuration, nodeID: nodeID, queue: queue, logger: logger)
        occupancy = ClusterOccupancy(configuration: configuration, node: nodeID, logger: logger)
        let terminations = Locked<AsyncStream<UserTermination>.Continuation?>(nil)
        self.terminations = terminations
        clusterTerminations = ClusterTerminations(configuration: configuration, node: nodeID, logger: logger) { termination in
            _ = terminations.withLock { $0?.yield(termination) }
        }
    }

    /// The link's state, starting with the current one.
    public nonisolated var states: AsyncStream<BackplaneState> { link.states.subscribe() }

    /// Messages from other nodes dropped because they did not open with the cluster key or were
    /// seen before (forgeries, replays, a node with another key).
    public nonisolated var rejectedMessages: Int { link.rejectedMessages }

    /// Keeps the link to the other nodes up, and records this node's channels for the cluster's
    /// occupancy webhooks, until ``shutdown()``; the hub calls it.
    public func run() async throws {
        let (occupancy, clusterTerminations) = (occupancy, clusterTerminations)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await occupancy.run() }
            group.addTask { await clusterTerminations.run() }
            await link.run(for: self)
            await occupancy.stop(timeout: .zero)
            await clusterTerminations.stop(timeout: .zero)
        }
    }

    /// Records the last occupancy changes (at most 3 s), says goodbye (the other nodes drop this
    /// node's members at once) and ends ``run()``.
    public func shutdown() async {
        await occupancy.stop(timeout: .seconds(3))
        await clusterTerminations.stop(timeout: .seconds(3))
        await link.stop(farewell: [.bye])
        terminations.withLock { $0?.finish() }
        for queue in webhookQueues.withLock({ $0 }) { await queue.close() }
    }

    /// The cluster's queue, in the database: see ``PostgresWebhookQueue``.
    public nonisolated func webhookQueue(limits: HubLimits) -> (any WebhookQueue)? {
        let queue = PostgresWebhookQueue(configuration: configuration, node: nodeID, limits: limits, logger: logger)
        webhookQueues.withLock { $0.append(queue) }
        return queue
    }

    // MARK: - ChannelStateAdapter

    /// Member events go out from the node where the user joined or left; occupancy is decided
    /// in the database, once for the cluster (a row per channel and node, under a lock per channel).
    public func attachWebhooks(_ emitter: any WebhookEmitter) {
        webhooks = emitter
        occupancy.attach(emitter)
    }

    public func addConnection(socketID: String, appID: String, outbox: ConnectionOutbox) {
        table.addConnection(socketID: socketID, appID: appID, outbox: outbox)
    }

    public func removeConnection(socketID: String, appID: String) {
        share(table.removeConnection(socketID: socketID, appID: appID))
    }

    public func subscribe(
        socketID: String,
        appID: String,
        channel: String,
        member: PresenceMember?,
        maxPresenceMembers: Int
    ) -> SubscribeOutcome {
        let (outcome, changes) = table.subscribe(
            socketID: socketID, appID: appID, channel: channel, member: member, maxPresenceMembers: maxPresenceMembers)
        share(changes)
        return outcome
    }

    /// Who is online spans the nodes as presence does: each node reports the users signed in on
    /// it, and a user goes offline for a watcher only once no node has them.
    public func signIn(socketID: String, appID: String, userID: String, watchlist: [String]) {
        share(table.signIn(socketID: socketID, appID: appID, userID: userID, watchlist: watchlist))
    }

    public func countSubscriptions(ofApps appIDs: Set<String>) {
        table.countSubscriptions(ofApps: appIDs)
    }

    /// Each node tells its own subscribers the count across the cluster (its view of the
    /// others' counts), and emits the webhook for the changes made on it.
    public func flushSubscriptionCounts() {
        table.flushSubscriptionCounts()
        share([])
    }

    public func unsubscribe(socketID: String, appID: String, channel: String) {
        share(table.unsubscribe(socketID: socketID, appID: appID, channel: channel))
    }

    /// Delivers to this node's subscribers at once, and to the other nodes' through the
    /// database when any of them has a subscriber.
    public func publish(appID: String, channel: String, frame: String, excluding excludedSocketID: String?) {
        table.deliver(appID: appID, channel: channel, frame: frame, excluding: excludedSocketID)
        if table.hasRemoteSubscribers(appID: appID, channel: channel) {
            queue.append([.event(appID: appID, channel: channel, frame: frame, excluding: excludedSocketID)])
        }
    }

    /// On a cache channel, every node keeps the event (whether or not it has subscribers), so
    /// that each can serve it to its next subscriber; other events go as
    /// ``publish(appID:channel:frame:excluding:)`` sends them.
    public func trigger(appID: String, channel: String, frame: String, excluding excludedSocketID: String?, cache: EventCachePolicy) {
        guard EventCache.isCacheChannel(channel) else {
            return publish(appID: appID, channel: channel, frame: frame, excluding: excludedSocketID)
        }
        let now = Date()
        let entry = EventCache.Entry(frame: frame, triggeredAt: now, expiresAt: cache.expiry(from: now))
        cachePolicy = cache
        table.trigger(appID: appID, channel: channel, entry: entry, excluding: excludedSocketID, policy: cache)
        queue.append([.triggered(appID: appID, channel: channel, entry: entry, excluding: excludedSocketID)])
    }

    public func channels(appID: String) -> [ChannelSnapshot] {
        table.channels(appID: appID)
    }

    public func channel(appID: String, name: String) -> ChannelSnapshot? {
        table.channel(appID: appID, name: name)
    }

    public func presenceMembers(appID: String, channel: String) -> [PresenceMember] {
        table.members(of: ChannelTable.Key(appID: appID, name: channel))
    }

    /// Writes the termination for every other node to read (whether or not they hold such a
    /// connection: who is signed in as whom is not shared): a row of the cluster's database every node reads
    /// (also after it was away), for the termination's grace period.
    public func relayUserTermination(_ termination: UserTermination) {
        clusterTerminations.record(termination)
    }

    /// A new stream each time it is read; the terminations go to the latest one (the hub's).
    public nonisolated var userTerminations: AsyncStream<UserTermination> {
        let (stream, continuation) = AsyncStream.makeStream(of: UserTermination.self, bufferingPolicy: .bufferingNewest(1_000))
        terminations.withLock { latest in
            latest?.finish()
            latest = continuation
        }
        return stream
    }

    private func share(_ changes: [ChannelTable.Change]) {
        queue.append(changes.map(BackplaneMessage.change))
        let decided = table.takeWebhookEvents()
        guard let webhooks else { return }
        for case let .subscriptions(key, count) in changes
        where webhooks.wants(.channelOccupied, appID: key.appID) || webhooks.wants(.channelVacated, appID: key.appID) {
            if count > 0, occupiedHere.insert(key).inserted {
                occupancy.record(.occupied(appID: key.appID, channel: key.name))
            } else if count == 0, occupiedHere.remove(key) != nil {
                occupancy.record(.vacated(appID: key.appID, channel: key.name))
            }
        }
        for (appID, event) in decided {
            switch event {
            case .channelOccupied, .channelVacated: continue
            default: webhooks.emit(appID: appID, event)
            }
        }
    }
}

extension PostgresChannelState: BackplaneMember {
    func linkEstablished() {
        // What was queued while the link was down is stale: the whole state replaces it.
        queue.replace(with: [.hello] + wholeState)
    }

    func resynchronize() {
        queue.appendWholeState(wholeState)
    }

    /// This node's whole state, which replaces what the other nodes know of it, and the cache
    /// channels' last events it keeps (a node that (re)joins learns them from every other).
    private var wholeState: [BackplaneMessage] {
        [.syncBegin] + table.localState.changes.map(BackplaneMessage.change) + [.syncEnd]
            + table.cache.live().map { key, entry in .cached(appID: key.appID, channel: key.name, entry: entry) }
    }

    func receive(_ messages: [BackplaneMessage], from node: String) {
        lastHeard[node] = .now
        for message in messages {
            switch message {
            case let .event(appID, channel, frame, excluded):
                table.deliver(appID: appID, channel: channel, frame: frame, excluding: excluded)
            case let .change(change):
                if incomingSync[node] != nil {
                    incomingSync[node]!.apply(change)
                } else {
                    table.apply(change, from: node)
                }
            case .hello:
                queue.appendWholeState(wholeState)
            case .syncBegin:
                incomingSync[node] = ChannelTable.NodeState()
            case .syncEnd:
                if let state = incomingSync.removeValue(forKey: node) { table.replace(node: node, with: state) }
            case .bye:
                forget(node)
            case let .terminate(appID, userID):
                // From a node of an earlier version (this one writes terminations to their table).
                _ = terminations.withLock { $0?.yield(UserTermination(appID: appID, userID: userID)) }
            case let .triggered(appID, channel, entry, excluded):
                table.trigger(appID: appID, channel: channel, entry: entry, excluding: excluded, policy: cachePolicy)
            case let .cached(appID, channel, entry):
                table.remember(entry, appID: appID, channel: channel, policy: cachePolicy)
            }
        }
    }

    func forgetNodes(notIn live: Set<String>, silentFor silence: Duration) {
        let now = ContinuousClock.now
        for node in table.remoteNodes.union(incomingSync.keys) where !live.contains(node) {
            if let heard = lastHeard[node], now - heard < silence { continue }
            logger.info("backplane.node.gone", metadata: ["node": "\(node)"])
            forget(node)
        }
    }

    private func forget(_ node: String) {
        incomingSync[node] = nil
        lastHeard[node] = nil
        table.replace(node: node, with: ChannelTable.NodeState())
    }
}
