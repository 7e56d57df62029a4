import Clearance

/// Each app's HTTP API rates on this node (`backendEventsPerSecond`, `readRequestsPerSecond`):
/// one ``TokenBucket`` per app and kind, holding one second's worth, so that a burst up to the
/// rate passes and the rest is answered 429 until the bucket refills. A bucket follows its app's
/// limit as reloads change it. In a cluster, each node counts its own.
final class AppRequestRates: Sendable {
    /// What a request spends.
    enum Kind: String, Sendable {
        /// Events the HTTP API publishes (`events`, `batch_events`; each channel counts).
        case backendEvents
        /// Reads (`channels`, a channel, its users).
        case readRequests
    }

    private struct Key: Hashable {
        let appID: String
        let kind: Kind
    }

    private let buckets = Locked([Key: TokenBucket]())

    /// Takes `count` from the app's bucket of `kind`, whose rate is `perSecond` (nil: no limit,
    /// always true). False when the bucket does not hold them all (nothing is taken then): a
    /// request that needs more than a whole second's worth is always refused, so that naming many
    /// channels in one request never passes the rate.
    func take(_ count: Int, _ kind: Kind, appID: String, perSecond: Int?, at now: ContinuousClock.Instant = .now) -> Bool {
        let key = Key(appID: appID, kind: kind)
        guard let perSecond else {
            buckets.withLock { _ = $0.removeValue(forKey: key) }
            return true
        }
        return buckets.withLock { buckets in
            var bucket = buckets[key].flatMap { $0.perSecond == Double(perSecond) ? $0 : nil }
                ?? TokenBucket(capacity: perSecond, perSecond: perSecond)
            defer { buckets[key] = bucket }
            guard count <= Int(bucket.capacity) else { return false }
            return bucket.take(count, at: now)
        }
    }

    /// Forgets the buckets of apps that are no longer served.
    func keep(only appIDs: Set<String>) {
        buckets.withLock { buckets in buckets = buckets.filter { appIDs.contains($0.key.appID) } }
    }
}
