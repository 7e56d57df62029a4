import Foundation

/// How long a hub keeps the last event of each cache channel, and for how many channels, in all
/// and per app (``HubChannelLimits/cacheTTL``, ``HubChannelLimits/maxCachedChannels`` and the app's part of
/// it, ``HubConnectionLimits/appShare``).
public struct EventCachePolicy: Sendable, Hashable {
    /// How long an event is kept after it was triggered.
    public var ttl: Duration
    /// The most channels whose event is kept.
    public var maxChannels: Int
    /// The most channels of one app whose event is kept: past it the app's own entries make room.
    public var maxChannelsPerApp: Int

    /// A policy; without `maxChannelsPerApp`, one app may fill all of `maxChannels`.
    public init(ttl: Duration, maxChannels: Int, maxChannelsPerApp: Int? = nil) {
        self.ttl = ttl
        self.maxChannels = maxChannels
        self.maxChannelsPerApp = min(maxChannelsPerApp ?? maxChannels, maxChannels)
    }

    /// When an event triggered at `date` is forgotten.
    public func expiry(from date: Date) -> Date {
        let (seconds, attoseconds) = ttl.components
        return date + Double(seconds) + Double(attoseconds) / 1e18
    }
}
