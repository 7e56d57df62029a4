import ClearanceSigning

/// The coalescing of `pusher_internal:subscription_count` for a ``ChannelTable``: which
/// channels' subscriber counts changed (here or on another node) since their subscribers were
/// last told, and when that was. A channel is told at most once per ``interval``, and once more
/// after its last change; a channel whose count came back to what was told is not told again.
/// Only the apps that ask for it (``HubAppConfiguration/subscriptionCount``) are tracked, and
/// never presence channels (their members say more).
package struct SubscriptionCounts: Sendable {
    /// The shortest time between two counts of one channel.
    package static let interval: Duration = .seconds(1)

    /// The apps whose channels are counted.
    package var apps: Set<String> = []
    /// The channels changed since they were last told, and whether a change was this node's.
    private var pending: [ChannelTable.Key: Bool] = [:]
    /// When each channel with subscribers here was last told, and what.
    private var told: [ChannelTable.Key: (at: ContinuousClock.Instant, count: Int)] = [:]

    package init() {}

    /// The channel's count changed, on this node (`local`) or another.
    package mutating func changed(_ key: ChannelTable.Key, local: Bool) {
        guard apps.contains(key.appID), ChannelNameKind(channelName: key.name) != .presence else { return }
        pending[key] = (pending[key] ?? false) || local
    }

    /// The channels due at `now` (changed, and not told within ``interval``), with whether a
    /// change was this node's; they are no longer pending.
    package mutating func due(at now: ContinuousClock.Instant) -> [(key: ChannelTable.Key, local: Bool)] {
        var due: [(key: ChannelTable.Key, local: Bool)] = []
        for (key, local) in pending {
            if let last = told[key], now - last.at < Self.interval { continue }
            guard apps.contains(key.appID) else { continue }
            due.append((key, local))
        }
        for (key, _) in due { pending[key] = nil }
        pending = pending.filter { apps.contains($0.key.appID) }
        return due.sorted { $0.key < $1.key }
    }

    /// Whether `count` is news for the channel's subscribers (not what they were last told).
    package func isNews(_ key: ChannelTable.Key, count: Int) -> Bool {
        told[key]?.count != count
    }

    /// The channel's subscribers here were told `count` at `now`; a channel without
    /// subscribers here is forgotten (nothing to remember it for).
    package mutating func told(_ key: ChannelTable.Key, count: Int, at now: ContinuousClock.Instant, subscribersHere: Bool) {
        told[key] = subscribersHere ? (now, count) : nil
    }
}
