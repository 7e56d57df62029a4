import Foundation

/// The last event triggered on each cache channel (`cache-`, `private-cache-`,
/// `private-encrypted-cache-`, `presence-cache-`), kept for a time (``EventCachePolicy/ttl``) and for at
/// most ``EventCachePolicy/maxChannels`` channels, ``EventCachePolicy/maxChannelsPerApp`` of one
/// app: past an app's bound, that app's entry that expires soonest goes (one app's triggers never
/// push out another's); past the whole bound, the expired entries go first, then the ones that
/// expire soonest. A new subscriber of a cache channel gets the kept event right after
/// `pusher_internal:subscription_succeeded`, or `pusher:cache_miss` when there is none.
///
/// Times are wall-clock (`Date`): the nodes of a cluster share their entries, and the newest
/// (by the time it was triggered) wins.
package struct EventCache: Sendable {
    /// One kept event.
    package struct Entry: Sendable, Hashable {
        /// The event's frame, as subscribers get it.
        package let frame: String
        /// When it was triggered.
        package let triggeredAt: Date
        /// When it is forgotten.
        package let expiresAt: Date

        package init(frame: String, triggeredAt: Date, expiresAt: Date) {
            self.frame = frame
            self.triggeredAt = triggeredAt
            self.expiresAt = expiresAt
        }
    }

    /// The cache channel name prefixes.
    package static let prefixes = ["cache-", "private-cache-", "private-encrypted-cache-", "presence-cache-"]

    /// Whether `channel` is a cache channel.
    package static func isCacheChannel(_ channel: String) -> Bool {
        prefixes.contains { channel.hasPrefix($0) }
    }

    private var entries: [ChannelTable.Key: Entry] = [:]
    private var countByApp: [String: Int] = [:]

    package init() {}

    /// The number of channels with a kept event (expired ones included until they are purged).
    package var count: Int { entries.count }

    /// Every entry that has not expired at `now`.
    package func live(at now: Date = Date()) -> [(ChannelTable.Key, Entry)] {
        entries.filter { $0.value.expiresAt > now }.map { ($0.key, $0.value) }
    }

    /// The event kept for `key`, unless there is none or it expired at `now`.
    package func entry(for key: ChannelTable.Key, at now: Date = Date()) -> Entry? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry
    }

    /// Keeps `entry` for `key` unless a newer one is kept already (another node's), within
    /// `maxChannels` in all and `maxChannelsPerApp` for the key's app.
    package mutating func store(_ entry: Entry, for key: ChannelTable.Key, maxChannels: Int, maxChannelsPerApp: Int? = nil, now: Date = Date()) {
        guard entry.expiresAt > now, maxChannels > 0 else { return }
        if let kept = entries[key], kept.triggeredAt > entry.triggeredAt { return }
        if entries[key] == nil {
            let perApp = min(maxChannelsPerApp ?? maxChannels, maxChannels)
            if countByApp[key.appID, default: 0] >= perApp,
               let soonest = entries.filter({ $0.key.appID == key.appID }).min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                remove(soonest.key)
            }
            if entries.count >= maxChannels {
                for (candidate, kept) in entries where kept.expiresAt <= now { remove(candidate) }
                if entries.count >= maxChannels, let soonest = entries.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                    remove(soonest.key)
                }
            }
            countByApp[key.appID, default: 0] += 1
        }
        entries[key] = entry
    }

    /// The number of channels of `appID` with a kept event.
    package func count(of appID: String) -> Int {
        countByApp[appID, default: 0]
    }

    private mutating func remove(_ key: ChannelTable.Key) {
        guard entries.removeValue(forKey: key) != nil else { return }
        let left = countByApp[key.appID, default: 1] - 1
        countByApp[key.appID] = left > 0 ? left : nil
    }
}
