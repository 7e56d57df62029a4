import Foundation

/// How long a hub keeps the last event of each cache channel, and for how many channels
/// (``HubLimits/cacheTTL`` and ``HubLimits/maxCachedChannels``).
public struct EventCachePolicy: Sendable, Hashable {
    /// How long an event is kept after it was triggered.
    public var ttl: Duration
    /// The most channels whose event is kept.
    public var maxChannels: Int

    /// A policy.
    public init(ttl: Duration, maxChannels: Int) {
        self.ttl = ttl
        self.maxChannels = maxChannels
    }

    /// When an event triggered at `date` is forgotten.
    public func expiry(from date: Date) -> Date {
        let (seconds, attoseconds) = ttl.components
        return date + Double(seconds) + Double(attoseconds) / 1e18
    }
}
