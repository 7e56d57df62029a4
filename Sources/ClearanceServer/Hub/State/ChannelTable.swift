import ClearanceSigning
import Foundation

/// Channel state as one node sees it: its own connections (reached through their outboxes), and
/// what the other nodes of a cluster reported about theirs (subscription counts and presence
/// members, as ``NodeState``s). A plain value: the hub's `HubChannelState` holds one, and on a
/// cluster relays its ``Change``s to the other nodes.
///
/// Presence spans the nodes: a user is a member while any node has one of their connections in
/// the channel. Each node tells its own subscribers `member_added` when a user becomes a member
/// in its view and `member_removed` when the user is no member anywhere any more, so a user who
/// moves from one node to another is never reported gone.
package struct ChannelTable: Sendable {
    /// A channel of an app.
    package struct Key: Hashable, Sendable, Comparable {
        package let appID: String
        package let name: String

        package init(appID: String, name: String) {
            self.appID = appID
            self.name = name
        }

        package static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.appID, lhs.name) < (rhs.appID, rhs.name)
        }
    }

    /// What changed in this node's own state, for the other nodes.
    package enum Change: Sendable, Hashable {
        /// This node now has `count` subscriptions to the channel (0: none).
        case subscriptions(Key, count: Int)
        /// The user is now present in the channel through this node.
        case memberJoined(Key, PresenceMember)
        /// The user is no longer present in the channel through this node.
        case memberLeft(Key, userID: String)
        /// The user now has a signed-in connection on this node (watchlists).
        case userOnline(OnlineUsers.UserKey)
        /// The user no longer has a signed-in connection on this node.
        case userOffline(OnlineUsers.UserKey)
    }

    /// One node's share of the state, as another node knows it.
    package struct NodeState: Sendable, Equatable {
        /// Subscriptions per channel (channels with none are absent).
        package var subscriptions: [Key: Int] = [:]
        /// The users present per presence channel, in the order they arrived.
        package var members: [Key: [PresenceMember]] = [:]
        /// The users signed in on the node.
        package var users: Set<OnlineUsers.UserKey> = []

        package init() {}

        /// The changes that build this state from nothing.
        package var changes: [Change] {
            subscriptions.keys.sorted().map { .subscriptions($0, count: subscriptions[$0]!) }
                + members.keys.sorted().flatMap { key in members[key]!.map { .memberJoined(key, $0) } }
                + users.sorted().map { .userOnline($0) }
        }

        package mutating func apply(_ change: Change) {
            switch change {
            case let .subscriptions(key, count):
                subscriptions[key] = count > 0 ? count : nil
            case let .memberJoined(key, member):
                if let index = members[key]?.firstIndex(where: { $0.id == member.id }) {
                    members[key]![index] = member
                } else {
                    members[key, default: []].append(member)
                }
            case let .memberLeft(key, userID):
                members[key]?.removeAll { $0.id == userID }
                if members[key]?.isEmpty == true { members[key] = nil }
            case let .userOnline(user):
                users.insert(user)
            case let .userOffline(user):
                users.remove(user)
            }
        }
    }

    struct LocalChannel {
        var subscribers: [String: ConnectionOutbox] = [:]
        /// Present for presence channels only.
        var roster: PresenceRoster?
    }

    private struct Connection {
        let appID: String
        let outbox: ConnectionOutbox
        var channels: Set<String> = []
    }

    private var connections: [String: Connection] = [:]
    var channels: [Key: LocalChannel] = [:]
    private var remote: [String: NodeState] = [:]
    /// Who is signed in where, and who watches whom.
    private var online = OnlineUsers()
    /// The subscription counts to tell, coalesced.
    private var counts = SubscriptionCounts()
    /// The last event of each cache channel (every node keeps every one).
    package private(set) var cache = EventCache()
    /// Wall time now, for the cache's expiry (the hub's clock).
    package var date: @Sendable () -> Date = { Date() }
    /// The recent events of the channels whose app keeps a history.
    package var history = ChannelHistory()
    /// On a cluster, the events of a history that reached this node ahead of an earlier one
    /// (`ChannelTable+ClusterHistory.swift`).
    package var waiting: [Key: HistoryWaiting] = [:]
    /// The hub's clock now, for the history's `ttl`.
    package var now: @Sendable () -> ContinuousClock.Instant = { .now }
    /// Webhook events decided since ``takeWebhookEvents()`` last ran.
    private var webhookEvents: [(appID: String, event: WebhookEvent)] = []

    package init() {}

    /// The webhook events this node's changes decided, in order, since the last call:
    /// `channel_occupied` when a channel gets its first subscriber of every node known,
    /// `channel_vacated` when its last goes, `member_added` and `member_removed` when a user joins
    /// or leaves a presence channel for good (the same decisions as the announcements to
    /// subscribers). A cluster decides occupancy elsewhere (its ``ClusterOccupancy``) and leave
    /// those two out.
    package mutating func takeWebhookEvents() -> [(appID: String, event: WebhookEvent)] {
        defer { webhookEvents.removeAll() }
        return webhookEvents
    }

    // MARK: - This node's connections

    package mutating func addConnection(socketID: String, appID: String, outbox: ConnectionOutbox) {
        connections[socketID] = Connection(appID: appID, outbox: outbox)
    }

    /// Removes a connection from every channel; see `HubChannelState.removeConnection`.
    package mutating func removeConnection(socketID: String, appID: String) -> [Change] {
        guard let connection = connections.removeValue(forKey: socketID) else { return [] }
        var changes = connection.channels.sorted().flatMap { leave(socketID: socketID, key: Key(appID: appID, name: $0)) }
        if let user = online.remove(socketID: socketID) { changes.append(.userOffline(user)) }
        return changes
    }

    /// The connection signed in as `userID` watching `watchlist`; see
    /// `HubChannelState.signIn`.
    package mutating func signIn(socketID: String, appID: String, userID: String, watchlist: [String]) -> [Change] {
        guard let connection = connections[socketID], connection.appID == appID else { return [] }
        let first = online.signIn(socketID: socketID, appID: appID, userID: userID, watchlist: watchlist, outbox: connection.outbox)
        return first ? [.userOnline(OnlineUsers.UserKey(appID: appID, userID: userID))] : []
    }

    /// The apps whose channels tell their subscribers their subscription count.
    package mutating func countSubscriptions(ofApps appIDs: Set<String>) {
        counts.apps = appIDs
    }

    /// Tells the subscribers here of every channel whose count changed and is due (see
    /// ``SubscriptionCounts``) its count across the nodes, and records the `subscription_count`
    /// webhook events of the channels this node changed (``takeWebhookEvents()``).
    package mutating func flushSubscriptionCounts(at now: ContinuousClock.Instant = .now) {
        for (key, local) in counts.due(at: now) {
            let here = channels[key]
            let count = (here?.subscribers.count ?? 0) + remote.values.reduce(0) { $0 + ($1.subscriptions[key] ?? 0) }
            guard counts.isNews(key, count: count) else { continue }
            counts.told(key, count: count, at: now, subscribersHere: here != nil)
            if let here {
                let delivery = ConnectionOutbox.Delivery.frame(PusherFrame.subscriptionCount(channel: key.name, count: count))
                for outbox in here.subscribers.values { outbox.deliver(delivery) }
            }
            if local { webhookEvents.append((key.appID, .subscriptionCount(channel: key.name, count: count))) }
        }
    }

    /// Whether the user has a signed-in connection on any node.
    package func isOnline(appID: String, userID: String) -> Bool {
        online.isOnline(OnlineUsers.UserKey(appID: appID, userID: userID))
    }

    /// Subscribes a connection; see `HubChannelState.subscribe`.
    /// The presence limit counts the members of every node. On a channel with a history,
    /// `resume` (the client's last position) is honoured: the events it missed follow
    /// `subscription_succeeded` when every one is kept (at most `maxReplayBytes` of them), and
    /// the result's `recovered` says which (nil: no resume, or no history). The replay and what the
    /// connection holds unsent together stay within `maxReplayBytes`. On a cluster, `fetched` is
    /// what its history keeps after `resume`.
    package mutating func subscribe(
        socketID: String,
        appID: String,
        channel name: String,
        member: PresenceMember?,
        maxPresenceMembers: Int,
        resume: ChannelHistory.Position? = nil,
        fetched: ClusterHistoryRead? = nil,
        maxReplayBytes: Int = .max
    ) -> (SubscribeOutcome, [Change], recovered: Bool?) {
        guard var connection = connections[socketID], connection.appID == appID else { return (.unknownConnection, [], nil) }
        let key = Key(appID: appID, name: name)
        if let existing = channels[key], existing.subscribers[socketID] != nil {
            if let position = history.position(key, now: now()) {
                connection.outbox.deliver(.frame(PusherFrame.subscriptionSucceeded(channel: name, position: position, recovered: nil)))
            } else {
                connection.outbox.deliver(.subscriptionSucceeded(channel: name, members: existing.roster.map { _ in members(of: key) }))
            }
            deliverCachedEvent(of: key, to: connection.outbox)
            return (.alreadySubscribed, [], nil)
        }
        let wasOccupied = channels[key] != nil || remote.values.contains { $0.subscriptions[key] != nil }
        // Taken out of the table while it changes, so that its subscribers are not copied (a
        // channel with 10,000 subscribers would be copied for every new one).
        var channel = channels.removeValue(forKey: key) ?? LocalChannel()
        defer { channels[key] = channel.subscribers.isEmpty ? nil : channel }

        var changes: [Change] = []
        var announced: PresenceMember?
        if let member {
            var roster = channel.roster ?? PresenceRoster()
            let elsewhere = Set(remoteMembers(of: key).map(\.id)).subtracting(roster.members.map(\.id)).subtracting([member.id])
            switch roster.join(socketID: socketID, member: member, limit: maxPresenceMembers - elsewhere.count) {
            case .full:
                return (.presenceChannelFull, [], nil)
            case .newMember:
                changes.append(.memberJoined(key, member))
                if !isRemoteMember(member.id, of: key) { announced = member }
            case .additionalConnection, .alreadyJoined:
                break
            }
            channel.roster = roster
        }

        channel.subscribers[socketID] = connection.outbox
        connection.channels.insert(name)
        connections[socketID] = connection
        changes.insert(.subscriptions(key, count: channel.subscribers.count), at: 0)
        counts.changed(key, local: true)
        if !wasOccupied { webhookEvents.append((appID, .channelOccupied(channel: name))) }
        if let announced { webhookEvents.append((appID, .memberAdded(channel: name, userID: announced.id))) }

        let recovered = deliverSubscriptionSucceeded(
            key, roster: channel.roster, to: connection.outbox, resume: resume, fetched: fetched, maxReplayBytes: maxReplayBytes)
        let missed = recovered != true && !deliverCachedEvent(of: key, to: connection.outbox)
        if let announced {
            let delivery = ConnectionOutbox.Delivery.memberAdded(channel: name, member: announced)
            for (otherID, outbox) in channel.subscribers where otherID != socketID {
                outbox.deliver(delivery)
            }
        }
        return (missed ? .subscribedWithoutCachedEvent : .subscribed, changes, recovered)
    }

    /// Delivers `subscription_succeeded` to a new subscriber: on a channel with a history, with
    /// its position, and after it, when `resume` recovers, the events missed since (a recovered
    /// subscriber has the cache channel's last event already). Returns whether the resume
    /// recovered (nil: none, or no history).
    private mutating func deliverSubscriptionSucceeded(
        _ key: Key, roster: PresenceRoster?, to outbox: ConnectionOutbox, resume: ChannelHistory.Position?, fetched: ClusterHistoryRead?,
        maxReplayBytes: Int
    ) -> Bool? {
        guard let position = history.subscribe(key, now: now()) else {
            outbox.deliver(.subscriptionSucceeded(channel: key.name, members: roster.map { members(local: $0, of: key) }))
            return nil
        }
        // What the connection holds unsent already (the replays of its other channels, say) counts:
        // a client resuming many channels at once is never closed as a slow reader for it.
        let room = max(0, maxReplayBytes - outbox.unsentBytes)
        guard let resume, let resumption = history.resume(key, from: resume, fetched: fetched, maxBytes: room, now: now()) else {
            outbox.deliver(.frame(PusherFrame.subscriptionSucceeded(channel: key.name, position: position, recovered: nil)))
            return nil
        }
        switch resumption {
        case let .recovered(frames, position):
            outbox.deliver(.frame(PusherFrame.subscriptionSucceeded(channel: key.name, position: position, recovered: true)))
            for frame in frames { outbox.deliver(.encoded(frame)) }
            return true
        case let .notRecovered(position, _):
            outbox.deliver(.frame(PusherFrame.subscriptionSucceeded(channel: key.name, position: position, recovered: false)))
            return false
        }
    }

    /// On a cache channel, delivers its kept event, or `pusher:cache_miss` when it keeps none
    /// (then returns false). Other channels: nothing, and true.
    @discardableResult
    private func deliverCachedEvent(of key: Key, to outbox: ConnectionOutbox) -> Bool {
        guard EventCache.isCacheChannel(key.name) else { return true }
        guard let entry = cache.entry(for: key, at: date()) else {
            outbox.deliver(.frame(PusherFrame.cacheMiss(channel: key.name)))
            return false
        }
        outbox.deliver(.frame(entry.frame))
        return true
    }

    /// The event frame as subscribers get it: on a channel whose app keeps a history, kept there
    /// and given its `serial` and `stream` (the serial is returned too); otherwise as it is.
    package mutating func stamp(_ frame: String, appID: String, channel name: String) -> (frame: EncodedFrame, serial: Int?) {
        guard let (stamped, serial) = history.append(frame, to: Key(appID: appID, name: name), now: now()) else { return (EncodedFrame(frame), nil) }
        return (stamped, serial)
    }

    /// An event triggered through the HTTP API (here or on another node: `entry`): delivered as
    /// ``deliver(appID:channel:frame:excluding:)`` does and, on a cache channel, kept as its
    /// last event under `policy`.
    package mutating func trigger(appID: String, channel name: String, entry: EventCache.Entry, excluding excludedSocketID: String?, policy: EventCachePolicy) {
        remember(entry, appID: appID, channel: name, policy: policy)
        deliver(appID: appID, channel: name, frame: entry.frame, excluding: excludedSocketID)
    }

    /// Keeps `entry` as the cache channel's last event (unless a newer one is kept), delivering
    /// nothing: what a node learns of another's cache when it (re)joins the cluster.
    package mutating func remember(_ entry: EventCache.Entry, appID: String, channel name: String, policy: EventCachePolicy) {
        guard EventCache.isCacheChannel(name) else { return }
        cache.store(entry, for: Key(appID: appID, name: name), maxChannels: policy.maxChannels, maxChannelsPerApp: policy.maxChannelsPerApp, now: date())
    }

    /// Unsubscribes a connection; see `HubChannelState.unsubscribe`.
    package mutating func unsubscribe(socketID: String, appID: String, channel name: String) -> [Change] {
        guard var connection = connections[socketID], connection.channels.remove(name) != nil else { return [] }
        connections[socketID] = connection
        return leave(socketID: socketID, key: Key(appID: appID, name: name))
    }

    /// Delivers `frame` to this node's subscribers of the channel, except `excludedSocketID`:
    /// encoded once, its one buffer shared by every subscriber.
    package func deliver(appID: String, channel name: String, frame: String, excluding excludedSocketID: String?) {
        deliver(appID: appID, channel: name, frame: EncodedFrame(frame), excluding: excludedSocketID)
    }

    /// Delivers an event frame encoded already (one buffer for every subscriber), as the other `deliver` does.
    package func deliver(appID: String, channel name: String, frame: EncodedFrame, excluding excludedSocketID: String?) {
        guard let channel = channels[Key(appID: appID, name: name)] else { return }
        let delivery = ConnectionOutbox.Delivery.encoded(frame)
        for (socketID, outbox) in channel.subscribers where socketID != excludedSocketID {
            outbox.deliver(delivery)
        }
    }

    /// This node's share, as the other nodes should know it.
    package var localState: NodeState {
        var state = NodeState()
        for (key, channel) in channels where !channel.subscribers.isEmpty {
            state.subscriptions[key] = channel.subscribers.count
            if let roster = channel.roster, !roster.isEmpty { state.members[key] = roster.members }
        }
        state.users = online.localUsers
        return state
    }

    // MARK: - Other nodes

    /// The nodes this one knows something about.
    package var remoteNodes: Set<String> { Set(remote.keys) }

    /// Whether another node reported subscribers of the channel (an event must cross to it).
    package func hasRemoteSubscribers(appID: String, channel name: String) -> Bool {
        let key = Key(appID: appID, name: name)
        return remote.values.contains { $0.subscriptions[key] != nil }
    }

    /// Applies what `node` reported, telling this node's subscribers about members that arrive
    /// or leave for good.
    package mutating func apply(_ change: Change, from node: String) {
        switch change {
        case let .subscriptions(key, _):
            remote[node, default: NodeState()].apply(change)
            counts.changed(key, local: false)
        case let .memberJoined(key, member):
            let wasMember = isMember(member.id, of: key)
            remote[node, default: NodeState()].apply(change)
            if !wasMember { announce(.memberAdded(channel: key.name, member: member), in: key) }
        case let .memberLeft(key, userID):
            remote[node]?.apply(change)
            if !isMember(userID, of: key) { announce(.memberRemoved(channel: key.name, userID: userID), in: key) }
        case let .userOnline(user):
            remote[node, default: NodeState()].apply(change)
            online.apply(online: true, user, from: node)
        case let .userOffline(user):
            remote[node]?.apply(change)
            online.apply(online: false, user, from: node)
        }
        if remote[node] == NodeState() { remote[node] = nil }
    }

    /// Replaces all `node` reported (a node that synchronizes again after it lost its link, or
    /// leaves: `NodeState()`), telling this node's subscribers only about real arrivals and
    /// departures.
    package mutating func replace(node: String, with state: NodeState) {
        let old = remote[node] ?? NodeState()
        let keys = Set(old.members.keys).union(state.members.keys)
        let before = Dictionary(uniqueKeysWithValues: keys.map { ($0, members(of: $0)) })
        remote[node] = state == NodeState() ? nil : state
        online.replace(node: node, with: state.users)
        for key in Set(old.subscriptions.keys).union(state.subscriptions.keys) where old.subscriptions[key] != state.subscriptions[key] {
            counts.changed(key, local: false)
        }
        for key in keys.sorted() {
            let after = members(of: key)
            let remaining = Set(after.map(\.id))
            for gone in before[key]! where !remaining.contains(gone.id) {
                announce(.memberRemoved(channel: key.name, userID: gone.id), in: key)
            }
            let previous = Set(before[key]!.map(\.id))
            for arrived in after where !previous.contains(arrived.id) {
                announce(.memberAdded(channel: key.name, member: arrived), in: key)
            }
        }
    }

    // MARK: - Every node together

    /// The app's channels occupied on any node.
    package func channels(appID: String) -> [ChannelSnapshot] {
        var names = Set(channels.keys.lazy.filter { $0.appID == appID }.map(\.name))
        for state in remote.values {
            names.formUnion(state.subscriptions.keys.lazy.filter { $0.appID == appID }.map(\.name))
        }
        return names.sorted().compactMap { channel(appID: appID, name: $0) }
    }

    /// One channel across the nodes, or `nil` when no node has a subscriber.
    package func channel(appID: String, name: String) -> ChannelSnapshot? {
        let key = Key(appID: appID, name: name)
        let local = channels[key]
        let count = (local?.subscribers.count ?? 0) + remote.values.reduce(0) { $0 + ($1.subscriptions[key] ?? 0) }
        guard count > 0 else { return nil }
        let isPresence = ChannelNameKind(channelName: name) == .presence
        return ChannelSnapshot(name: name, subscriptionCount: count, userCount: isPresence ? members(of: key).count : nil)
    }

    /// The distinct users of a presence channel on every node: this node's in the order they
    /// arrived, then the others'.
    package func members(of key: Key) -> [PresenceMember] {
        members(local: channels[key]?.roster, of: key)
    }

    private func members(local roster: PresenceRoster?, of key: Key) -> [PresenceMember] {
        var list = roster?.members ?? []
        var seen = Set(list.map(\.id))
        for member in remoteMembers(of: key) where seen.insert(member.id).inserted {
            list.append(member)
        }
        return list
    }

    // MARK: - Helpers

    private func remoteMembers(of key: Key) -> [PresenceMember] {
        remote.keys.sorted().flatMap { remote[$0]!.members[key] ?? [] }
    }

    private func isRemoteMember(_ userID: String, of key: Key) -> Bool {
        remote.values.contains { $0.members[key]?.contains { $0.id == userID } == true }
    }

    private func isMember(_ userID: String, of key: Key) -> Bool {
        channels[key]?.roster?.contains(userID: userID) == true || isRemoteMember(userID, of: key)
    }

    /// Delivers `delivery` (encoded once, only when the channel has subscribers here) to every
    /// subscriber of the channel on this node.
    private func announce(_ delivery: @autoclosure () -> ConnectionOutbox.Delivery, in key: Key) {
        guard let channel = channels[key] else { return }
        let delivery = delivery()
        for outbox in channel.subscribers.values { outbox.deliver(delivery) }
    }

    private mutating func leave(socketID: String, key: Key) -> [Change] {
        guard channels[key]?.subscribers[socketID] != nil, var channel = channels.removeValue(forKey: key) else { return [] }
        channel.subscribers[socketID] = nil
        var changes: [Change] = [.subscriptions(key, count: channel.subscribers.count)]
        counts.changed(key, local: true)
        history.unsubscribe(key, now: now())
        var departed: String?
        if var roster = channel.roster {
            if case let .memberLeft(userID) = roster.leave(socketID: socketID) {
                changes.append(.memberLeft(key, userID: userID))
                if !isRemoteMember(userID, of: key) { departed = userID }
            }
            channel.roster = roster
        }
        channels[key] = channel.subscribers.isEmpty ? nil : channel
        if let departed { webhookEvents.append((key.appID, .memberRemoved(channel: key.name, userID: departed))) }
        if channel.subscribers.isEmpty, !remote.values.contains(where: { $0.subscriptions[key] != nil }) {
            webhookEvents.append((key.appID, .channelVacated(channel: key.name)))
        }
        if let departed {
            let delivery = ConnectionOutbox.Delivery.memberRemoved(channel: key.name, userID: departed)
            for outbox in channel.subscribers.values {
                outbox.deliver(delivery)
            }
        }
        return changes
    }
}
