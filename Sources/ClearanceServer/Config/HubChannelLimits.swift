/// The hub's limits and timers for channels and events: names, sizes, presence, subscriptions and
/// the cache: ``HubLimits/channels`` in code, the `"channels"` object of `"limits"` in a
/// configuration file. Every member has a default and an allowed range, listed on each
/// (``HubConfiguration/validate()`` refuses a value outside it).
public struct HubChannelLimits: Sendable, Hashable {
    /// Longest channel name. Default 200 (the server libraries' limit; hosted Pusher: 164); 1 to 1,024.
    public var maxChannelNameLength: Int = 200
    /// Largest event `data`, in UTF-8 bytes, from clients and the HTTP API. Default 10,240;
    /// 1 to 16,777,216 (16 MiB).
    public var maxEventDataBytes: Int = 10_240
    /// Most distinct users in one presence channel. Default 100; 1 to 100,000.
    public var maxPresenceMembers: Int = 100
    /// Largest presence `user_info`, in bytes of JSON text. Default 1,024; 2 to 1,048,576.
    public var maxPresenceUserInfoBytes: Int = 1_024
    /// Client events each connection may send per second; more are refused with error 4301. Default 10;
    /// 0 (none) to 10,000.
    public var clientEventsPerSecond: Int = 10
    /// Longest event name. Default 200; 1 to 1,024.
    public var maxEventNameLength: Int = 200
    /// Most subscriptions (a connection on a channel) the hub holds across all its connections;
    /// a subscription past it is refused with a `pusher:subscription_error` (`LimitReached`,
    /// status 503). With ``HubConnectionLimits/maxConnections`` and ``maxChannelsPerConnection`` alone the product
    /// could reach 10 million; this bounds the memory subscriptions take (about 1 KB each).
    /// Default 200,000; 1 to 100,000,000.
    public var maxSubscriptions: Int = 200_000
    /// Most channels one connection may be subscribed to at once; a subscription past it is
    /// refused with a `pusher:subscription_error` (`LimitReached`, status 403). Default 1,000;
    /// 1 to 100,000.
    public var maxChannelsPerConnection: Int = 1_000
    /// Subscribes and unsubscribes each connection may send per second on average (presence
    /// joins and leaves included), after a first burst of ``maxChannelsPerConnection`` (a
    /// reconnecting client subscribes to all its channels at once). A subscribe past it is
    /// refused with a `pusher:subscription_error` (`LimitReached`, status 429); an unsubscribe
    /// is always honoured but counted, so a connection cannot churn a presence channel faster
    /// than this. Default 50; 1 to 100,000.
    public var subscriptionChangesPerSecond: Int = 50
    /// Seconds a cache channel (`cache-`, `private-cache-`, `private-encrypted-cache-`,
    /// `presence-cache-`) keeps the last event triggered on it through the HTTP API, for new
    /// subscribers. Default 1,800 (30 minutes, as hosted Pusher); at most 86,400.
    public var cacheTTL: Double = 1_800
    /// Most cache channels whose last event the hub keeps (each up to the largest event frame:
    /// about 10 KB with the default ``maxEventDataBytes``); past it the expired entries go
    /// first, then the ones that expire soonest. Default 10,000 (about 100 MB at most); 0 (keep
    /// nothing: every subscriber gets `pusher:cache_miss`) to 1,000,000.
    public var maxCachedChannels: Int = 10_000
    /// Bytes of channel history the hub keeps for every app together (the apps with a
    /// ``HubAppConfiguration/history``): each event counted as its frame plus 64 bytes, each
    /// channel with a history as 256 bytes. Past it the oldest events go first, from the app
    /// that holds the most; each app holds at most its ``HubConnectionLimits/appShare`` of it when
    /// the hub serves several. A client whose missed events went answers `recovered: false`.
    /// Default 67,108,864 (64 MiB); 1,048,576 to 17,179,869,184 (16 GiB).
    public var maxHistoryBytes: Int = 67_108_864

    /// The defaults listed on each member.
    public init() {}
}
