/// The hub's limits and timers for WebSocket connections: their timers, sizes and the budgets they
/// share: ``HubLimits/connections`` in code, the `"connections"` object of `"limits"` in a
/// configuration file. Every member has a default and an allowed range, listed on each
/// (``HubConfiguration/validate()`` refuses a value outside it).
public struct HubConnectionLimits: Sendable, Hashable {
    /// Seconds of client silence before the hub sends `pusher:ping`; also announced to clients
    /// as `activity_timeout` in `pusher:connection_established`. Default 120; 1 to 3,600.
    public var activityTimeout: Int = 120
    /// Seconds the hub waits for any frame after its `pusher:ping` before closing with 4201. Default 30; at most 3,600.
    public var pongTimeout: Double = 30
    /// Whether the hub pings silent clients. When off, a client silent for ``inactivityTimeout``
    /// is closed with 4202 instead. Default on.
    public var serverPings: Bool = true
    /// Seconds of total silence after which a connection is closed with 4202 when
    /// ``serverPings`` is off. Default 86,400 (24 hours, as hosted Pusher); at most 604,800 (a week).
    public var inactivityTimeout: Double = 86_400
    /// Largest WebSocket message the hub reads; a bigger one closes the connection with 1009.
    /// Default 32,768; 1,024 to 16,777,216 (16 MiB).
    public var maxMessageBytes: Int = 32_768
    /// Most simultaneous WebSocket connections across all apps; more are closed with 4100
    /// ("over capacity": the client retries after a backoff). Default 10,000; 0 to 1,000,000.
    /// Every socket also counts against the hub's descriptor budget (the process's descriptor
    /// limit, raised to its hard limit at start, less a reserve): a hub started with a budget
    /// below this limit warns, naming both.
    public var maxConnections: Int = 10_000
    /// Most simultaneous sockets (WebSocket or HTTP) from one IP address; past it a socket is
    /// closed at accept and counted (``HubCounter/socketsRefusedAtAddressLimit``). `nil` (the
    /// default) sets no limit: behind a load balancer every client has its address, and tests and
    /// benchmarks open thousands from one. 1 to 1,000,000.
    public var maxConnectionsPerIP: Int? = nil
    /// Bytes one WebSocket may leave unsent (a client that reads slowly or not at all): frames
    /// handed to the connection and not yet taken by its socket, each counted with its payload
    /// and 128 bytes of bookkeeping. Past it the connection gets no more frames and is closed with
    /// 4100, counted (``HubCounter/slowReadersClosed``) and logged. Frames shared by many
    /// connections (events) are held once whatever the number of their readers. Default
    /// 1,048,576 (1 MiB); 65,536 to 1,073,741,824, and at least twice the largest event.
    public var maxOutboundBytes: Int = 1_048_576
    /// Bytes all WebSockets together may leave unsent: while they have more, any connection that
    /// is behind by more than 64 KiB (its channel's high-water mark) is closed with 4100 as its next
    /// frame comes, so that clients that stop reading cannot together hold more of the hub's
    /// memory, however many they are (connections that still read are not affected). Default
    /// 268,435,456 (256 MiB); 1 MiB to 64 GiB, and at least ``maxOutboundBytes``.
    public var maxTotalOutboundBytes: Int = 268_435_456
    /// Seconds the hub waits for a client to answer its close frame. Default 5; at most 600.
    public var closeTimeout: Double = 5
    /// Seconds over which a stopping hub spreads its close frames (4200), so that its clients do
    /// not all come back in the same instant. Default 1; 0 (every connection at once) to 60.
    public var shutdownSpread: Double = 1
    /// The largest part of each budget the apps share that one app may hold when the hub serves
    /// more than one app: connections (``maxConnections``; an app's own `maxConnections` wins),
    /// subscriptions (``HubChannelLimits/maxSubscriptions``), queued webhook events and bytes
    /// (``HubWebhookLimits/maxQueuedWebhooks``, ``HubWebhookLimits/maxQueuedWebhookBytes``), channel history
    /// (``HubChannelLimits/maxHistoryBytes``: its oldest events go). An app at its part is refused, counted
    /// and logged under its own `app_id`; the others go on. A hub with a single app gives it the
    /// whole budget. Default 0.25; more than 0 to 1.
    public var appShare: Double = 0.25
    /// Most connections from one IP address that have not authorized yet (on an app with
    /// `authorizedConnections`: neither signed in nor subscribed to a private or presence channel).
    /// Past it a new one is closed with 4100 and counted. A user authorizes within a second or
    /// two, so even a large office behind one NAT address holds few at once. Default 1,000; 1 to 1,000,000.
    public var maxUnauthorizedConnectionsPerIP: Int = 1_000
    /// Seconds after an app's `terminate_connections` during which a sign-in as that user, or a
    /// presence subscription as that user, is refused (Pusher's signatures never expire: a client
    /// holding one signed before the terminate could otherwise come straight back). Default 60;
    /// 0 (none) to 86,400.
    public var terminationGracePeriod: Double = 60

    /// The defaults listed on each member.
    public init() {}
}
