import Clearance
import ClearanceSigning
import Foundation

/// The hub's one channel state: who is connected, subscribed and present, who is online and
/// who watches them, subscription counts, cache channels' last events (a ``ChannelTable``), and
/// how a frame reaches every subscriber of a channel. A feature of the table needs no change to
/// any cluster code: on a cluster, changes travel as ``ClusterMessage``s through the
/// ``ClusterTransport`` of its ``ClusterDrivers``, and the node sync (`hello`, whole state,
/// `bye`) is here too (`HubChannelState+Cluster.swift`).
///
/// Deliveries are queued on the connections' outboxes while the actor is isolated, so every
/// connection sees a channel's events in the order the actor processed them (a subscriber never
/// sees a channel's `member_added` before its own `subscription_succeeded`), and a slow
/// connection never holds it up.
actor HubChannelState {
    var table = ChannelTable()
    let webhooks: (any WebhookEmitter)?
    let cluster: ClusterDrivers?
    /// How long and for how many channels cache channels keep their last event (the hub's
    /// limits and apps of the moment).
    let cachePolicy: @Sendable () -> EventCachePolicy
    /// The hub's clock.
    let clock: any HubClock
    /// The state a node is sending between `sync-begin` and `sync-end`.
    var incomingSync: [String: ChannelTable.NodeState] = [:]
    var lastHeard: [String: ContinuousClock.Instant] = [:]
    /// The nodes forgotten for their silence (not for their goodbye), and when: one that comes
    /// back was only slow, and is asked for its whole state (`HubChannelState+Cluster.swift`).
    var silenced: [String: ContinuousClock.Instant] = [:]
    /// The channels this node has subscribers of, for the apps whose webhooks want occupancy
    /// (decided for the cluster by its ``ClusterOccupancy``).
    private var occupiedHere: Set<ChannelTable.Key> = []
    /// Where the terminations other nodes relay go: the stream the hub reads last.
    let terminations = Locked<AsyncStream<UserTermination>.Continuation?>(nil)
    /// Where resumes are counted (``HubCounter/resumesRecovered``, ``HubCounter/resumesNotRecovered``).
    let counters: HubCounters?
    /// On a cluster keeping the history: the subscribed channels this node was behind on at the
    /// last upkeep round, and where (`HubChannelState+History.swift`).
    var behindAtLastRound: [ChannelTable.Key: ChannelHistory.Position] = [:]
    /// The events the history keeps, for ``HubGauge/historyEvents`` (read outside the actor).
    nonisolated let historyEvents = Locked(0)

    /// - Parameters:
    ///   - webhooks: Where the events the state decides go (`channel_occupied` and
    ///     `channel_vacated`, `member_added` and `member_removed`, `subscription_count`).
    ///   - cluster: The cluster this hub is a node of; nil for a hub on its own.
    ///   - clock: The hub's clock (cache expiry, subscription-count coalescing, silent nodes).
    ///   - history: The apps that keep a history of their channels, and its bounds.
    ///   - counters: Where resumes are counted.
    ///   - cachePolicy: The cache channels' policy now.
    init(
        webhooks: (any WebhookEmitter)?, cluster: ClusterDrivers? = nil, clock: any HubClock = SystemHubClock(),
        history: ChannelHistory.Settings = ChannelHistory.Settings(), counters: HubCounters? = nil,
        cachePolicy: @escaping @Sendable () -> EventCachePolicy = {
            let limits = HubLimits()
            return EventCachePolicy(ttl: .seconds(limits.channels.cacheTTL), maxChannels: limits.channels.maxCachedChannels)
        }
    ) {
        self.webhooks = webhooks
        self.cluster = cluster
        self.cachePolicy = cachePolicy
        self.clock = clock
        self.counters = counters
        table.date = { clock.date }
        table.now = { clock.now }
        table.history.update(history, now: clock.now)
    }

    /// Runs the cluster's link and occupancy until ``shutdown()``; returns at once on a hub of
    /// its own.
    func run() async throws {
        guard let cluster else { return }
        guard let occupancy = cluster.occupancy, let webhooks else {
            return try await cluster.transport.run(inbox: ClusterInbox(state: self))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await occupancy.run(emitting: webhooks) }
            try await cluster.transport.run(inbox: ClusterInbox(state: self))
            await occupancy.stop(timeout: .zero)
            try await group.waitForAll()
        }
    }

    /// Records the last occupancy changes (at most 3 s), says goodbye (the other nodes drop
    /// this node's members at once) and ends ``run()``.
    func shutdown() async {
        if let cluster {
            await cluster.occupancy?.stop(timeout: .seconds(3))
            await cluster.transport.shutdown(farewell: [.bye])
        }
        terminations.withLock { $0?.finish() }
    }

    /// Registers a new connection of `appID` and the outbox that reaches it.
    func addConnection(socketID: String, appID: String, outbox: ConnectionOutbox) {
        table.addConnection(socketID: socketID, appID: appID, outbox: outbox)
    }

    /// Removes a connection from every channel, delivering `member_removed` to the remaining
    /// subscribers of each presence channel the user has left for good.
    func removeConnection(socketID: String, appID: String) {
        share(table.removeConnection(socketID: socketID, appID: appID))
    }

    /// Subscribes a registered connection to `channel` (already authorized by the caller).
    ///
    /// On success delivers `subscription_succeeded` to the connection (with the member list,
    /// including `member`, for presence channels), then `member_added` to the channel's other
    /// subscribers when `member` is a user not yet present anywhere in the cluster.
    /// `maxPresenceMembers` is the most distinct users the presence channel may hold.
    ///
    /// On a channel with a history, `resume` (the client's last position) is honoured (see
    /// ``ChannelTable/subscribe(socketID:appID:channel:member:maxPresenceMembers:resume:fetched:maxReplayBytes:)``),
    /// and counted. On a cluster that keeps the history (``ClusterDrivers/history``), the
    /// cluster's history is read first (`HubChannelState+History.swift`).
    func subscribe(
        socketID: String, appID: String, channel: String, member: PresenceMember?, maxPresenceMembers: Int,
        resume: ChannelHistory.Position? = nil, maxReplayBytes: Int = .max
    ) async -> SubscribeOutcome {
        // On a cluster keeping the history, what it holds is read first; the rest is one step.
        let fetched = await readClusterHistory(appID: appID, channel: channel, resume: resume)
        let (outcome, changes, recovered) = table.subscribe(
            socketID: socketID, appID: appID, channel: channel, member: member, maxPresenceMembers: maxPresenceMembers,
            resume: resume, fetched: fetched, maxReplayBytes: maxReplayBytes)
        share(changes)
        if let recovered { counters?.increment(recovered ? .resumesRecovered : .resumesNotRecovered) }
        return outcome
    }

    /// Keeps the history of `settings`' apps from now on (a reload may change them).
    func updateHistory(_ settings: ChannelHistory.Settings) {
        guard settings != table.history.settings else { return }
        table.history.update(settings, now: clock.now)
        countHistoryEvents()
    }

    /// Drops the history's events past their `ttl`, and its idle channels; on a cluster, reads
    /// the events that waited since before `waitingSince` for an earlier one.
    func purgeHistory(waitingSince: ContinuousClock.Instant? = nil) async {
        guard !table.history.settings.apps.isEmpty else { return }
        table.history.purge(now: clock.now)
        countHistoryEvents()
        if let waitingSince { await fillHistoryGaps(waitingSince: waitingSince) }
    }

    /// Copies the history's event count where ``HubGauge/historyEvents`` reads it.
    func countHistoryEvents() {
        historyEvents.withLock { $0 = table.history.eventCount }
    }

    /// Unsubscribes a connection; delivers `member_removed` when it was the user's last
    /// connection in a presence channel. Unknown subscriptions are ignored.
    func unsubscribe(socketID: String, appID: String, channel: String) {
        share(table.unsubscribe(socketID: socketID, appID: appID, channel: channel))
    }

    /// The registered connection signed in as `userID`, watching `watchlist` (checked by the
    /// hub): it gets one `watchlist_events` frame with the watched users online now (none: no
    /// frame), and every watcher of `userID` on every node hears `online` at the user's first
    /// connection anywhere and `offline` after their last.
    func signIn(socketID: String, appID: String, userID: String, watchlist: [String]) {
        share(table.signIn(socketID: socketID, appID: appID, userID: userID, watchlist: watchlist))
    }

    /// Which apps' channels tell their subscribers their subscription count.
    func countSubscriptions(ofApps appIDs: Set<String>) {
        table.countSubscriptions(ofApps: appIDs)
    }

    /// Sends what is due of `pusher_internal:subscription_count` to this node's subscribers
    /// (the count across the cluster, at most once per channel per second and once after its
    /// last change), and emits the `subscription_count` webhook for the channels this node changed.
    func flushSubscriptionCounts() {
        table.flushSubscriptionCounts(at: clock.now)
        share([])
    }

    /// Delivers the event `frame` to every subscriber of `channel` except `excludedSocketID`:
    /// this node's at once, the other nodes' through the transport when any of them has a
    /// subscriber. On a channel with a history it is kept there first, with its serial (returned);
    /// on a cluster that keeps the history, in the cluster's (an event it cannot take is dropped:
    /// nil).
    @discardableResult
    func publish(appID: String, channel: String, frame: String, excluding excludedSocketID: String?) async -> Int? {
        if keepsInCluster(appID: appID, channel: channel) {
            return try? await keep(appID: appID, channel: channel, frame: frame, excluding: excludedSocketID, cache: nil)
        }
        let (encoded, serial) = table.stamp(frame, appID: appID, channel: channel)
        if serial != nil { countHistoryEvents() }
        table.deliver(appID: appID, channel: channel, frame: encoded, excluding: excludedSocketID)
        if let cluster, table.hasRemoteSubscribers(appID: appID, channel: channel) {
            cluster.transport.publish([.event(appID: appID, channel: channel, frame: serial == nil ? frame : encoded.text, excluding: excludedSocketID)])
        }
        return serial
    }

    /// Delivers an event triggered through the HTTP API as ``publish(appID:channel:frame:excluding:)``
    /// does and, on a cache channel, keeps it under `cache` as the channel's last event on every
    /// node (whether or not it has subscribers), so that each serves it to its next subscriber.
    /// Returns the event's serial on a channel with a history. On a cluster that keeps the
    /// history, throws when the cluster's history did not take the event (nothing delivered).
    @discardableResult
    func trigger(appID: String, channel: String, frame: String, excluding excludedSocketID: String?, cache: EventCachePolicy) async throws -> Int? {
        if keepsInCluster(appID: appID, channel: channel) {
            return try await keep(
                appID: appID, channel: channel, frame: frame, excluding: excludedSocketID, cache: EventCache.isCacheChannel(channel) ? cache : nil)
        }
        guard EventCache.isCacheChannel(channel) else {
            return await publish(appID: appID, channel: channel, frame: frame, excluding: excludedSocketID)
        }
        let (encoded, serial) = table.stamp(frame, appID: appID, channel: channel)
        if serial != nil { countHistoryEvents() }
        let now = clock.date
        let entry = EventCache.Entry(frame: serial == nil ? frame : encoded.text, triggeredAt: now, expiresAt: cache.expiry(from: now))
        table.remember(entry, appID: appID, channel: channel, policy: cache)
        table.deliver(appID: appID, channel: channel, frame: encoded, excluding: excludedSocketID)
        cluster?.transport.publish([.triggered(appID: appID, channel: channel, entry: entry, excluding: excludedSocketID)])
        return serial
    }

    /// Publishes `event` (the HTTP API's, or an outbox row read as one) on each of its channels,
    /// as ``trigger(appID:channel:frame:excluding:cache:)`` does; returns the serial each channel
    /// with a history gave it. Throws `channel` when the cluster's history could not take the event
    /// there: the channels before it have it, none after.
    func trigger(_ event: TriggerEvent, appID: String) async throws(HTTPAPIError) -> [String: Int] {
        var serials: [String: Int] = [:]
        for channel in event.channels {
            let frame = PusherFrame.event(name: event.name, channel: channel, data: event.data)
            do {
                serials[channel] = try await trigger(appID: appID, channel: channel, frame: frame, excluding: event.excludedSocketID, cache: cachePolicy())
            } catch {
                throw .historyUnavailable(channel: channel)
            }
        }
        return serials
    }

    /// The app's occupied channels.
    func channels(appID: String) -> [ChannelSnapshot] {
        table.channels(appID: appID)
    }

    /// One channel, or `nil` when nobody is subscribed to it.
    func channel(appID: String, name: String) -> ChannelSnapshot? {
        table.channel(appID: appID, name: name)
    }

    /// The distinct users of a presence channel, in the order they arrived.
    func presenceMembers(appID: String, channel: String) -> [PresenceMember] {
        table.members(of: ChannelTable.Key(appID: appID, name: channel))
    }

    /// Asks the other nodes to close their connections of the termination's app signed in as
    /// its user, and to refuse that user for its grace period (this node closes its own). A
    /// hub on its own has no other node.
    func relayUserTermination(_ termination: UserTermination) {
        cluster?.transport.publish([.terminate(termination)])
    }

    /// The terminations other nodes relayed, for the hub to carry out: a new stream each time
    /// it is read; they go to the latest one (the hub's).
    nonisolated var userTerminations: AsyncStream<UserTermination> {
        let (stream, continuation) = AsyncStream.makeStream(of: UserTermination.self, bufferingPolicy: .bufferingNewest(1_000))
        terminations.withLock { latest in
            latest?.finish()
            latest = continuation
        }
        if cluster == nil { continuation.finish() }
        return stream
    }

    /// Sends this node's changes to the others, and hands on the webhook events the table
    /// decided: on a cluster, occupancy and presence members are its ``ClusterOccupancy``'s to
    /// decide, once for all the nodes (a node's own view could miss a user who leaves two nodes
    /// at once, or one whose node died).
    private func share(_ changes: [ChannelTable.Change]) {
        let decided = table.takeWebhookEvents()
        guard let cluster else {
            for (appID, event) in decided { webhooks?.emit(appID: appID, event) }
            return
        }
        cluster.transport.publish(changes.map(ClusterMessage.change))
        guard let webhooks else { return }
        guard let occupancy = cluster.occupancy else {
            for (appID, event) in decided { webhooks.emit(appID: appID, event) }
            return
        }
        for change in changes {
            switch change {
            case let .subscriptions(key, count)
            where webhooks.wants(.channelOccupied, appID: key.appID) || webhooks.wants(.channelVacated, appID: key.appID):
                if count > 0, occupiedHere.insert(key).inserted {
                    occupancy.record(.occupied(appID: key.appID, channel: key.name))
                } else if count == 0, occupiedHere.remove(key) != nil {
                    occupancy.record(.vacated(appID: key.appID, channel: key.name))
                }
            case let .memberJoined(key, member)
            where webhooks.wants(.memberAdded, appID: key.appID) || webhooks.wants(.memberRemoved, appID: key.appID):
                occupancy.record(.joined(appID: key.appID, channel: key.name, userID: member.id))
            case let .memberLeft(key, userID)
            where webhooks.wants(.memberAdded, appID: key.appID) || webhooks.wants(.memberRemoved, appID: key.appID):
                occupancy.record(.left(appID: key.appID, channel: key.name, userID: userID))
            default:
                continue
            }
        }
        for (appID, event) in decided {
            switch event {
            case .channelOccupied, .channelVacated, .memberAdded, .memberRemoved: continue
            default: webhooks.emit(appID: appID, event)
            }
        }
    }
}
