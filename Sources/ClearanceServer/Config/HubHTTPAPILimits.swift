/// The hub's limits and timers for the HTTP API: its sockets, requests and rates:
/// ``HubLimits/httpAPI`` in code, the `"httpAPI"` object of `"limits"` in a configuration file.
/// Every member has a default and an allowed range, listed on each (``HubConfiguration/validate()``
/// refuses a value outside it).
public struct HubHTTPAPILimits: Sendable, Hashable {
    /// Most channels one HTTP API event may name. Default 100; 1 to 10,000.
    public var maxChannelsPerEvent: Int = 100
    /// Most events in one `batch_events` call. Default 10; 1 to 1,000.
    public var maxEventsPerBatch: Int = 10
    /// Largest HTTP request body the hub reads. Default 262,144; 1,024 to 67,108,864 (64 MiB).
    public var maxHTTPBodyBytes: Int = 262_144
    /// Most simultaneous sockets that are not (yet) WebSockets: HTTP API and auth endpoint
    /// requests, keep-alive connections, upgrades in progress. A socket past it is closed at
    /// accept and counted (``HubCounter/socketsRefusedAtHTTPLimit``), so plain HTTP can never
    /// take the room WebSockets need. Default 1,000; 1 to 1,000,000.
    public var maxHTTPConnections: Int = 1_000
    /// Seconds an HTTP connection may make no progress before the hub closes it: a request whose
    /// head or body stalls, a WebSocket upgrade request that never completes, or a keep-alive
    /// connection left idle. Default 30; at most 3,600.
    public var httpIdleTimeout: Double = 30
    /// Seconds within which an HTTP request's head and body must arrive, however they are
    /// trickled (the idle timeout restarts with every byte; this does not): counted from the
    /// request's first byte, checked until its last. Past it the connection is closed and counted
    /// (``HubCounter/requestsCutAtDeadline``). Default 30; at most 3,600.
    public var httpRequestTimeout: Double = 30
    /// Events the HTTP API may publish per second for each app (an event to three channels
    /// counts three; an app's own ``HubAppConfiguration/backendEventsPerSecond`` wins); past it
    /// the API answers 429 with a JSON error and `Retry-After: 1`. A burst of up to a second's
    /// worth passes. `nil` (the default): no limit. 1 to 1,000,000. Each node of a cluster counts its own.
    public var backendEventsPerSecond: Int? = nil
    /// Reads of the HTTP API (channels, a channel, its users) per second for each app (an app's
    /// own ``HubAppConfiguration/readRequestsPerSecond`` wins); past it the API answers 429.
    /// `nil` (the default): no limit. 1 to 1,000,000. Each node of a cluster counts its own.
    public var readRequestsPerSecond: Int? = nil

    /// The defaults listed on each member.
    public init() {}
}
