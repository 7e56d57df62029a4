/// The hub's protocol limits and timers. Every member has a default, and a configuration file
/// may set any subset of them.
///
/// Durations are in seconds (fractions allowed, so tests can run fast).
public struct HubLimits: Sendable, Hashable, Codable {
    /// Seconds of client silence before the hub sends `pusher:ping`; also announced to clients
    /// as `activity_timeout` in `pusher:connection_established`. Default 120.
    public var activityTimeout: Int
    /// Seconds the hub waits for any frame after its `pusher:ping` before closing with 4201. Default 30.
    public var pongTimeout: Double
    /// Whether the hub pings silent clients. When off, a client silent for ``inactivityTimeout``
    /// is closed with 4202 instead. Default on.
    public var serverPings: Bool
    /// Seconds of total silence after which a connection is closed with 4202 when
    /// ``serverPings`` is off. Default 86,400 (24 hours, as hosted Pusher).
    public var inactivityTimeout: Double
    /// Seconds a connection may stay without a user sign-in before it is closed with 4009;
    /// `nil` (the default) does not require sign-in.
    public var userAuthenticationTimeout: Double?
    /// Longest channel name. Default 200 (the server libraries' limit; hosted Pusher: 164).
    public var maxChannelNameLength: Int
    /// Largest event `data`, in UTF-8 bytes, from clients and the HTTP API. Default 10,240.
    public var maxEventDataBytes: Int
    /// Most distinct users in one presence channel. Default 100.
    public var maxPresenceMembers: Int
    /// Largest presence `user_info`, in bytes of JSON text. Default 1,024.
    public var maxPresenceUserInfoBytes: Int
    /// Client events each connection may send per second; more are refused with error 4301. Default 10.
    public var clientEventsPerSecond: Int
    /// Largest WebSocket message the hub reads; a bigger one closes the connection with 1009.
    /// Default 32,768.
    public var maxMessageBytes: Int
    /// Most channels one HTTP API event may name. Default 100.
    public var maxChannelsPerEvent: Int
    /// Most events in one `batch_events` call. Default 10.
    public var maxEventsPerBatch: Int
    /// Longest event name. Default 200.
    public var maxEventNameLength: Int
    /// Largest HTTP request body the hub reads. Default 262,144.
    public var maxHTTPBodyBytes: Int
    /// Most simultaneous connections across all apps; more are closed with 4100. `nil`: no limit.
    public var maxConnections: Int?
    /// Frames queued for one connection before it counts as too slow a reader and is dropped.
    /// Default 4,096.
    public var maxQueuedFrames: Int
    /// Seconds the hub waits for a client to answer its close frame. Default 5.
    public var closeTimeout: Double
    /// Seconds over which a stopping hub spreads its close frames (4200), so that its clients do
    /// not all come back in the same instant. Default 1; 0 closes every connection at once.
    public var shutdownSpread: Double

    /// The defaults listed on each member.
    public init(
        activityTimeout: Int = 120,
        pongTimeout: Double = 30,
        serverPings: Bool = true,
        inactivityTimeout: Double = 86_400,
        userAuthenticationTimeout: Double? = nil,
        maxChannelNameLength: Int = 200,
        maxEventDataBytes: Int = 10_240,
        maxPresenceMembers: Int = 100,
        maxPresenceUserInfoBytes: Int = 1_024,
        clientEventsPerSecond: Int = 10,
        maxMessageBytes: Int = 32_768,
        maxChannelsPerEvent: Int = 100,
        maxEventsPerBatch: Int = 10,
        maxEventNameLength: Int = 200,
        maxHTTPBodyBytes: Int = 262_144,
        maxConnections: Int? = nil,
        maxQueuedFrames: Int = 4_096,
        closeTimeout: Double = 5,
        shutdownSpread: Double = 1
    ) {
        self.activityTimeout = activityTimeout
        self.pongTimeout = pongTimeout
        self.serverPings = serverPings
        self.inactivityTimeout = inactivityTimeout
        self.userAuthenticationTimeout = userAuthenticationTimeout
        self.maxChannelNameLength = maxChannelNameLength
        self.maxEventDataBytes = maxEventDataBytes
        self.maxPresenceMembers = maxPresenceMembers
        self.maxPresenceUserInfoBytes = maxPresenceUserInfoBytes
        self.clientEventsPerSecond = clientEventsPerSecond
        self.maxMessageBytes = maxMessageBytes
        self.maxChannelsPerEvent = maxChannelsPerEvent
        self.maxEventsPerBatch = maxEventsPerBatch
        self.maxEventNameLength = maxEventNameLength
        self.maxHTTPBodyBytes = maxHTTPBodyBytes
        self.maxConnections = maxConnections
        self.maxQueuedFrames = maxQueuedFrames
        self.closeTimeout = closeTimeout
        self.shutdownSpread = shutdownSpread
    }

    /// Decodes the members present and keeps the default for the others.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = HubLimits()
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        activityTimeout = try value(.activityTimeout, defaults.activityTimeout)
        pongTimeout = try value(.pongTimeout, defaults.pongTimeout)
        serverPings = try value(.serverPings, defaults.serverPings)
        inactivityTimeout = try value(.inactivityTimeout, defaults.inactivityTimeout)
        userAuthenticationTimeout = try container.decodeIfPresent(Double.self, forKey: .userAuthenticationTimeout)
        maxChannelNameLength = try value(.maxChannelNameLength, defaults.maxChannelNameLength)
        maxEventDataBytes = try value(.maxEventDataBytes, defaults.maxEventDataBytes)
        maxPresenceMembers = try value(.maxPresenceMembers, defaults.maxPresenceMembers)
        maxPresenceUserInfoBytes = try value(.maxPresenceUserInfoBytes, defaults.maxPresenceUserInfoBytes)
        clientEventsPerSecond = try value(.clientEventsPerSecond, defaults.clientEventsPerSecond)
        maxMessageBytes = try value(.maxMessageBytes, defaults.maxMessageBytes)
        maxChannelsPerEvent = try value(.maxChannelsPerEvent, defaults.maxChannelsPerEvent)
        maxEventsPerBatch = try value(.maxEventsPerBatch, defaults.maxEventsPerBatch)
        maxEventNameLength = try value(.maxEventNameLength, defaults.maxEventNameLength)
        maxHTTPBodyBytes = try value(.maxHTTPBodyBytes, defaults.maxHTTPBodyBytes)
        maxConnections = try container.decodeIfPresent(Int.self, forKey: .maxConnections)
        maxQueuedFrames = try value(.maxQueuedFrames, defaults.maxQueuedFrames)
        closeTimeout = try value(.closeTimeout, defaults.closeTimeout)
        shutdownSpread = try value(.shutdownSpread, defaults.shutdownSpread)
    }

    /// The name of the first member outside its allowed range, if any.
    func firstInvalidMember() -> String? {
        if activityTimeout < 1 { return "activityTimeout" }
        if !(pongTimeout > 0) { return "pongTimeout" }
        if !(inactivityTimeout > 0) { return "inactivityTimeout" }
        if let timeout = userAuthenticationTimeout, !(timeout > 0) { return "userAuthenticationTimeout" }
        if maxChannelNameLength < 1 { return "maxChannelNameLength" }
        if maxEventDataBytes < 1 { return "maxEventDataBytes" }
        if maxPresenceMembers < 1 { return "maxPresenceMembers" }
        if maxPresenceUserInfoBytes < 2 { return "maxPresenceUserInfoBytes" }
        if clientEventsPerSecond < 0 { return "clientEventsPerSecond" }
        if maxMessageBytes < 1_024 { return "maxMessageBytes" }
        if maxChannelsPerEvent < 1 { return "maxChannelsPerEvent" }
        if maxEventsPerBatch < 1 { return "maxEventsPerBatch" }
        if maxEventNameLength < 1 { return "maxEventNameLength" }
        if maxHTTPBodyBytes < 1_024 { return "maxHTTPBodyBytes" }
        if let limit = maxConnections, limit < 0 { return "maxConnections" }
        if maxQueuedFrames < 16 { return "maxQueuedFrames" }
        if !(closeTimeout > 0) { return "closeTimeout" }
        if !(shutdownSpread >= 0 && shutdownSpread <= 60) { return "shutdownSpread" }
        return nil
    }
}
