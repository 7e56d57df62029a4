import ClearanceSigning
import Foundation

/// Channel state for a single hub process: everything in one actor's memory (a
/// `ChannelTable` with no other node).
///
/// Deliveries are queued on the connections' outboxes while the actor is isolated, so every
/// connection sees a channel's events in the order the actor processed them.
public actor InMemoryChannelState: ChannelStateAdapter {
    private var table = ChannelTable()
    private var webhooks: (any WebhookEmitter)?

    /// Creates empty state.
    public init() {}

    public func attachWebhooks(_ emitter: any WebhookEmitter) {
        webhooks = emitter
    }

    public func addConnection(socketID: String, appID: String, outbox: ConnectionOutbox) {
        table.addConnection(socketID: socketID, appID: appID, outbox: outbox)
    }

    public func removeConnection(socketID: String, appID: String) {
        _ = table.removeConnection(socketID: socketID, appID: appID)
        emitWebhooks()
    }

    public func subscribe(
        socketID: String,
        appID: String,
        channel name: String,
        member: PresenceMember?,
        maxPresenceMembers: Int
    ) -> SubscribeOutcome {
        defer { emitWebhooks() }
        return table.subscribe(socketID: socketID, appID: appID, channel: name, member: member, maxPresenceMembers: maxPresenceMembers).0
    }

    public func unsubscribe(socketID: String, appID: String, channel name: String) {
        _ = table.unsubscribe(socketID: socketID, appID: appID, channel: name)
        emitWebhooks()
    }

    public func signIn(socketID: String, appID: String, userID: String, watchlist: [String]) {
        _ = table.signIn(socketID: socketID, appID: appID, userID: userID, watchlist: watchlist)
    }

    public func countSubscriptions(ofApps appIDs: Set<String>) {
        table.countSubscriptions(ofApps: appIDs)
    }

    public func flushSubscriptionCounts() {
        table.flushSubscriptionCounts()
        emitWebhooks()
    }

    public func publish(appID: String, channel name: String, frame: String, excluding excludedSocketID: String?) {
        table.deliver(appID: appID, channel: name, frame: frame, excluding: excludedSocketID)
    }

    public func trigger(appID: String, channel name: String, frame: String, excluding excludedSocketID: String?, cache: EventCachePolicy) {
        let now = Date()
        let entry = EventCache.Entry(frame: frame, triggeredAt: now, expiresAt: cache.expiry(from: now))
        table.trigger(appID: appID, channel: name, entry: entry, excluding: excludedSocketID, policy: cache)
    }

    public func channels(appID: String) -> [ChannelSnapshot] {
        table.channels(appID: appID)
    }

    public func channel(appID: String, name: String) -> ChannelSnapshot? {
        table.channel(appID: appID, name: name)
    }

    public func presenceMembers(appID: String, channel name: String) -> [PresenceMember] {
        table.members(of: ChannelTable.Key(appID: appID, name: name))
    }

    /// Hands on what the table decided (in this process, it decides for the whole hub).
    private func emitWebhooks() {
        for (appID, event) in table.takeWebhookEvents() { webhooks?.emit(appID: appID, event) }
    }
}
