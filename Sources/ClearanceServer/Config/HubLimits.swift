import Foundation

/// The hub's protocol limits and timers. Every member has a default, and a configuration file
/// may set any subset of them, each in the object of its group (connections, HTTP API, channels
/// and events, webhooks: `"limits": {"connections": {"activityTimeout": 60}}`; the flat names
/// of earlier versions still load), or its environment variable (``applyingEnvironment(_:)``).
///
/// Durations are in seconds (fractions allowed, so tests can run fast). Every member has an
/// allowed range (listed on each member; ``HubConfiguration/validate()`` refuses a value outside
/// it with ``HubConfigurationError/invalidLimit(_:)``), so that no setting, however large, can
/// overflow a timer or an allocation.
public struct HubLimits: Sendable, Hashable, Codable {
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
    /// Largest WebSocket message the hub reads; a bigger one closes the connection with 1009.
    /// Default 32,768; 1,024 to 16,777,216 (16 MiB).
    public var maxMessageBytes: Int = 32_768
    /// Most channels one HTTP API event may name. Default 100; 1 to 10,000.
    public var maxChannelsPerEvent: Int = 100
    /// Most events in one `batch_events` call. Default 10; 1 to 1,000.
    public var maxEventsPerBatch: Int = 10
    /// Longest event name. Default 200; 1 to 1,024.
    public var maxEventNameLength: Int = 200
    /// Largest HTTP request body the hub reads. Default 262,144; 1,024 to 67,108,864 (64 MiB).
    public var maxHTTPBodyBytes: Int = 262_144
    /// Most simultaneous WebSocket connections across all apps; more are closed with 4100
    /// ("over capacity": the client retries after a backoff). Default 10,000; 0 to 1,000,000.
    /// Every socket also counts against the hub's descriptor budget (the process's descriptor
    /// limit, raised to its hard limit at start, less a reserve): a hub started with a budget
    /// below this limit warns, naming both.
    public var maxConnections: Int = 10_000
    /// Most simultaneous sockets that are not (yet) WebSockets: HTTP API and auth endpoint
    /// requests, keep-alive connections, upgrades in progress. A socket past it is closed at
    /// accept and counted (``HubCounter/socketsRefusedAtHTTPLimit``), so plain HTTP can never
    /// take the room WebSockets need. Default 1,000; 1 to 1,000,000.
    public var maxHTTPConnections: Int = 1_000
    /// Most simultaneous sockets (WebSocket or HTTP) from one IP address; past it a socket is
    /// closed at accept and counted (``HubCounter/socketsRefusedAtAddressLimit``). `nil` (the
    /// default) sets no limit: behind a load balancer every client has its address, and tests and
    /// benchmarks open thousands from one. 1 to 1,000,000.
    public var maxConnectionsPerIP: Int? = nil
    /// Most subscriptions (a connection on a channel) the hub holds across all its connections;
    /// a subscription past it is refused with a `pusher:subscription_error` (`LimitReached`,
    /// status 503). With ``maxConnections`` and ``maxChannelsPerConnection`` alone the product
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
    /// Seconds an HTTP connection may make no progress before the hub closes it: a request whose
    /// head or body stalls, a WebSocket upgrade request that never completes, or a keep-alive
    /// connection left idle. Default 30; at most 3,600.
    public var httpIdleTimeout: Double = 30
    /// Seconds within which an HTTP request's head and body must arrive, however they are
    /// trickled (the idle timeout restarts with every byte; this does not): counted from the
    /// request's first byte, checked until its last. Past it the connection is closed and counted
    /// (``HubCounter/requestsCutAtDeadline``). Default 30; at most 3,600.
    public var httpRequestTimeout: Double = 30
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
    /// Seconds a cache channel (`cache-`, `private-cache-`, `private-encrypted-cache-`,
    /// `presence-cache-`) keeps the last event triggered on it through the HTTP API, for new
    /// subscribers. Default 1,800 (30 minutes, as hosted Pusher); at most 86,400.
    public var cacheTTL: Double = 1_800
    /// Most cache channels whose last event the hub keeps (each up to the largest event frame:
    /// about 10 KB with the default ``maxEventDataBytes``); past it the expired entries go
    /// first, then the ones that expire soonest. Default 10,000 (about 100 MB at most); 0 (keep
    /// nothing: every subscriber gets `pusher:cache_miss`) to 1,000,000.
    public var maxCachedChannels: Int = 10_000
    /// Seconds a webhook target's events gather before they go out in one POST. Default 0.5;
    /// 0 (each as soon as possible) to 60.
    public var webhookBatchWindow: Double = 0.5
    /// Seconds one webhook POST may take (connecting included) before it counts as failed.
    /// Default 4 (Pusher's); more than 0 to 60.
    public var webhookAttemptTimeout: Double = 4
    /// Seconds a failed webhook is retried, with exponential back-off (with jitter), counted from
    /// when it was queued; then it is dropped, counted (``HubCounter/webhooksDropped``) and
    /// logged. Default 300 (Pusher's 5 minutes); 0 (one attempt) to 86,400.
    public var webhookRetryDuration: Double = 300
    /// Seconds before the first retry of a failed webhook; each next one waits twice as long (at
    /// most 60 s), less a random part of up to a half. Default 1; more than 0 to 60.
    public var webhookFirstRetryDelay: Double = 1
    /// Seconds a stopping hub waits for its pending webhooks to be delivered. Default 5; 0 to 300.
    public var webhookShutdownWait: Double = 5
    /// Events the HTTP API may publish per second for each app (an event to three channels
    /// counts three; an app's own ``HubAppConfiguration/backendEventsPerSecond`` wins); past it
    /// the API answers 429 with a JSON error and `Retry-After: 1`. A burst of up to a second's
    /// worth passes. `nil` (the default): no limit. 1 to 1,000,000. Each node of a cluster counts its own.
    public var backendEventsPerSecond: Int? = nil
    /// Reads of the HTTP API (channels, a channel, its users) per second for each app (an app's
    /// own ``HubAppConfiguration/readRequestsPerSecond`` wins); past it the API answers 429.
    /// `nil` (the default): no limit. 1 to 1,000,000. Each node of a cluster counts its own.
    public var readRequestsPerSecond: Int? = nil
    /// Most webhook events waiting for delivery (a receiver that is down): past it the oldest is
    /// dropped, counted (``HubCounter/webhooksDropped``) and logged, so that a dead receiver
    /// cannot grow the hub's memory. Default 100,000; 1 to 10,000,000.
    public var maxQueuedWebhooks: Int = 100_000
    /// Bytes of webhook events waiting for delivery, each counted as its JSON text plus 128
    /// bytes of bookkeeping: past it the oldest go as with ``maxQueuedWebhooks``, so that a
    /// receiver that is down while clients send large events holds at most this much of the
    /// hub's memory. Default 67,108,864 (64 MiB); 1,048,576 to 17,179,869,184 (16 GiB).
    public var maxQueuedWebhookBytes: Int = 67_108_864
    /// Largest webhook POST body, in bytes: a batch is cut to stay under it (the receiver's own
    /// limit, 1 MiB for nginx and for ``WebhookReceiver``, must not refuse a batch the hub could
    /// have sent in two). An event that cannot fit alone is dropped, counted and logged, never
    /// retried; a receiver that answers 413 gets smaller batches, down to one event, and an event
    /// it refuses alone is dropped so that the events behind it go on. Default 524,288 (512 KiB);
    /// 4,096 to 16,777,216 (16 MiB).
    public var maxWebhookBatchBytes: Int = 524_288
    /// The largest part of each budget the apps share that one app may hold when the hub serves
    /// more than one app: connections (``maxConnections``; an app's own `maxConnections` wins),
    /// subscriptions (``maxSubscriptions``), queued webhook events and bytes
    /// (``maxQueuedWebhooks``, ``maxQueuedWebhookBytes``). An app at its part is refused, counted
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

    /// The defaults, changed by `adjust`: `HubLimits { $0.closeTimeout = 1 }`.
    public init(_ adjust: (inout HubLimits) -> Void) {
        adjust(&self)
    }

    /// Decodes the members present and keeps the default for the others.
    /// - Throws: ``HubConfigurationError/removedLimit(_:replacement:)`` for `maxQueuedFrames`
    ///   (frames are no longer counted: ``maxOutboundBytes`` counts bytes) and
    ///   `userAuthenticationTimeout` (an app's `authorizedConnections` replaced it),
    ///   ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for another member that
    ///   is not a limit, or a decoding error.
    public init(from decoder: any Decoder) throws {
        let removed = try decoder.container(keyedBy: RemovedKeys.self)
        if removed.contains(.maxQueuedFrames) {
            throw HubConfigurationError.removedLimit("maxQueuedFrames", replacement: "maxOutboundBytes")
        }
        if removed.contains(.userAuthenticationTimeout) {
            throw HubConfigurationError.removedLimit(
                "userAuthenticationTimeout", replacement: "the app's \"authorizedConnections\": true and \"authorizedConnectionTimeout\"")
        }
        self = try ConfigurationMember.decode(Self.settings.map(\.member) + Self.groupMembers, from: decoder, startingFrom: HubLimits())
    }

    /// Writes every member (an optional one only when set) in its group's object, as
    /// ``init(from:)`` reads them: `{"connections": {"activityTimeout": 120, …}, "httpAPI": {…}, …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SettingKey.self)
        for group in HubLimitsSetting.Group.allCases {
            var nested = container.nestedContainer(keyedBy: SettingKey.self, forKey: SettingKey(group.rawValue))
            for setting in Self.settings where setting.group == group { try setting.encode(&nested, self) }
        }
    }

    /// Each group as a member of `"limits"`: an object of that group's settings, read after the
    /// flat names (deprecated: ``flatNames(inConfiguration:)``), so that the group's wins.
    private static let groupMembers: [ConfigurationMember<HubLimits>] = HubLimitsSetting.Group.allCases.map { group in
        ConfigurationMember(group.rawValue) { container, key, limits in
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return }
            let members = settings.filter { $0.group == group }.map(\.member)
            limits = try ConfigurationMember.decode(members, from: container.superDecoder(forKey: key), startingFrom: limits)
        }
    }

    /// The limits a configuration file (its JSON text) sets by their flat names (`"limits":
    /// {"activityTimeout": 60}`), each with its place in its group
    /// (`limits.connections.activityTimeout`): they still load, and `clearance serve` warns of them.
    package static func flatNames(inConfiguration data: Data) -> [(flat: String, grouped: String)] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let limits = object["limits"] as? [String: Any]
        else { return [] }
        return settings.filter { limits[$0.name] != nil }.map { ("limits.\($0.name)", "limits.\($0.group.rawValue).\($0.name)") }
    }

    /// Members that were removed, refused by name when a configuration still sets them.
    private enum RemovedKeys: String, CodingKey {
        case maxQueuedFrames, userAuthenticationTimeout
    }

    /// The sign-in deadline is an app's authorized connections now (signing in or subscribing to
    /// a private or presence channel both count).
    @available(*, unavailable, message: "set the app's authorizedConnections and authorizedConnectionTimeout (HubAppConfiguration)")
    public var userAuthenticationTimeout: Double? { fatalError("unavailable") }

    /// Frames given ``maxQueuedFrames`` a place no more: bytes are counted instead.
    @available(*, unavailable, message: "frames are no longer counted: set maxOutboundBytes, the bytes a connection may leave unsent")
    public var maxQueuedFrames: Int { fatalError("unavailable") }

    /// The name of the first member outside its allowed range, if any. NaN is outside every range.
    func firstInvalidMember() -> String? {
        Self.settings.first { !$0.holds(self) }?.name
    }

    /// One app's part of a budget of `total` that the apps share (``appShare``; the whole of it
    /// when the hub serves `apps` ≤ 1), at least 1.
    package func appPart(of total: Int, apps: Int) -> Int {
        guard apps > 1 else { return total }
        return max(1, Int((Double(total) * appShare).rounded(.down)))
    }

    /// The largest event frame the hub sends: its data, name and channel, and the JSON around them.
    var largestEventFrame: Int {
        maxEventDataBytes + maxEventNameLength + maxChannelNameLength + 64
    }

    /// Why two members cannot be used together, if they cannot.
    func conflict() -> String? {
        if maxOutboundBytes < 2 * largestEventFrame {
            return "maxOutboundBytes (\(maxOutboundBytes)) must be at least twice the largest event frame (\(largestEventFrame) bytes "
                + "with maxEventDataBytes \(maxEventDataBytes)): a connection could not receive two events in a row"
        }
        if maxTotalOutboundBytes < maxOutboundBytes {
            return "maxTotalOutboundBytes (\(maxTotalOutboundBytes)) must be at least maxOutboundBytes (\(maxOutboundBytes))"
        }
        return nil
    }

    /// The allowed range of a member (or `apps.maxConnections`), for error messages.
    static func allowedRange(of member: String) -> String? {
        let name = member.hasPrefix("apps.") ? String(member.dropFirst("apps.".count)) : member
        if name == "authorizedConnectionTimeout" { return "more than 0 to 86400 seconds" }
        return settings.first { $0.name == name }?.range
    }

    /// The range of ``maxConnections``, and of an app's.
    static let connectionRange = 0...1_000_000
    /// The range of ``maxPresenceMembers``, and of an app's.
    static let presenceMemberRange = 1...100_000
    /// The range of ``clientEventsPerSecond``, and of an app's.
    static let clientEventRange = 0...10_000
    /// The range of ``backendEventsPerSecond`` and ``readRequestsPerSecond``, and of an app's.
    static let requestRateRange = 1...1_000_000

    /// The members for `clearance serve --help`, by group, each with its environment variable,
    /// default, range and line of doc, from ``settings``.
    package static var helpText: String {
        let defaults = HubLimits()
        var text = "The \"limits\" object of --config (durations in seconds; Limits.md says what each bounds and what happens "
            + "past it), by group: each member, its environment variable (which wins over the file; an empty one counts as "
            + "unset), its default and range, and what it bounds:"
        for group in HubLimitsSetting.Group.allCases {
            text += "\n\(group.title):"
            for setting in settings where setting.group == group {
                text += "\n  \(setting.name) (\(setting.environmentVariable)): \(setting.tableDefault(defaults)) (\(setting.tableRange)). "
                    + "\(setting.summary)."
            }
        }
        return text
    }

    /// The operator's guide's table of settings (Markdown), by group, from ``settings``; a test
    /// compares the guide with it.
    package static var settingsTable: String {
        let defaults = HubLimits()
        var lines: [String] = []
        for group in HubLimitsSetting.Group.allCases {
            lines += ["", "**\(group.title)**", "", "| `limits` member | Environment variable | Default | Range | What it bounds |", "|---|---|---|---|---|"]
            for setting in settings where setting.group == group {
                lines.append("| `\(setting.name)` | `\(setting.environmentVariable)` | \(setting.tableDefault(defaults)) | \(setting.tableRange) | \(setting.summary) |")
            }
        }
        return lines.dropFirst().joined(separator: "\n")
    }

    /// These limits with every setting whose environment variable (`CLEARANCE_LIMITS_` and its
    /// name in upper snake case: `CLEARANCE_LIMITS_MAX_CONNECTIONS`) `environment` sets, non-empty, replaced by its value: the variable wins over the file. The
    /// range is checked later, with the rest (``HubConfiguration/validate()``).
    /// - Throws: ``HubConfigurationError/invalidEnvironmentValue(variable:expected:)`` for text of
    ///   another type ("ten" for a whole number).
    public func applyingEnvironment(_ environment: [String: String]) throws(HubConfigurationError) -> HubLimits {
        var limits = self
        for setting in Self.settings {
            guard let text = environment[setting.environmentVariable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { continue }
            guard setting.parse(&limits, text) else {
                throw .invalidEnvironmentValue(variable: setting.environmentVariable, expected: setting.expected)
            }
        }
        return limits
    }

    /// Every member, declared once, by group: its name, its range, one line of doc and how the
    /// tables show it (<doc:Limits> and the operator's guide's settings, both checked against this
    /// list by a test). Decoding, encoding, the environment (``applyingEnvironment(_:)``), the
    /// unknown-member check, validation and `clearance serve --help` go through it; a new member
    /// is one line here (and its stored property, with its default and its doc, above).
    package static let settings: [HubLimitsSetting] = [
        .count("activityTimeout", \.activityTimeout, 1...3_600, unit: .seconds)
            .about(.connections, "Seconds of client silence before the hub pings (announced as activity_timeout)"),
        .seconds("pongTimeout", \.pongTimeout, atMost: 3_600).about(.connections, "Seconds to answer the hub's ping before a close with 4201"),
        .flag("serverPings", \.serverPings).about(.connections, "Whether the hub pings silent clients (off: inactivityTimeout closes them)"),
        .seconds("inactivityTimeout", \.inactivityTimeout, atMost: 604_800)
            .about(.connections, "Seconds of total silence before a close with 4202, when serverPings is off"),
        .count("maxMessageBytes", \.maxMessageBytes, 1_024...16_777_216, unit: .bytes)
            .about(.connections, "Largest WebSocket message the hub reads (bigger: close with 1009)"),
        .count("maxConnections", \.maxConnections, connectionRange).about(.connections, "WebSocket connections across all apps (more: 4100)"),
        .optionalCount("maxConnectionsPerIP", \.maxConnectionsPerIP, 1...1_000_000)
            .about(.connections, "Sockets from one IP address (more: closed at accept)"),
        .count("maxUnauthorizedConnectionsPerIP", \.maxUnauthorizedConnectionsPerIP, 1...1_000_000)
            .about(.connections, "Connections from one IP address not yet authorized, on apps that require it"),
        .count("maxOutboundBytes", \.maxOutboundBytes, 65_536...1_073_741_824, unit: .bytes, rangeNote: ", ≥ 2 events")
            .about(.connections, "Bytes one WebSocket may leave unsent before a close with 4100"),
        .count("maxTotalOutboundBytes", \.maxTotalOutboundBytes, 1_048_576...68_719_476_736, unit: .bytes,
               rangeNote: ", ≥ `maxOutboundBytes`").about(.connections, "Bytes all WebSockets together may leave unsent"),
        .seconds("closeTimeout", \.closeTimeout, atMost: 600).about(.connections, "Seconds the hub waits for a client to answer its close"),
        .seconds("shutdownSpread", \.shutdownSpread, atMost: 60, zeroAllowed: true)
            .about(.connections, "Seconds over which a stopping hub spreads its close frames"),
        .fraction("appShare", \.appShare, atMost: 1)
            .about(.connections, "Largest part of each shared budget one app may hold, when the hub serves several"),
        .seconds("terminationGracePeriod", \.terminationGracePeriod, atMost: 86_400, zeroAllowed: true)
            .about(.connections, "Seconds after terminate_connections during which that user cannot come back"),
        .count("maxHTTPConnections", \.maxHTTPConnections, 1...1_000_000).about(.httpAPI, "Sockets that are not (yet) WebSockets"),
        .count("maxHTTPBodyBytes", \.maxHTTPBodyBytes, 1_024...67_108_864, unit: .bytes).about(.httpAPI, "Largest HTTP request body the hub reads"),
        .seconds("httpIdleTimeout", \.httpIdleTimeout, atMost: 3_600).about(.httpAPI, "Seconds an HTTP connection may make no progress"),
        .seconds("httpRequestTimeout", \.httpRequestTimeout, atMost: 3_600).about(.httpAPI, "Seconds within which a request's head and body must arrive"),
        .count("maxChannelsPerEvent", \.maxChannelsPerEvent, 1...10_000).about(.httpAPI, "Channels one HTTP API event may name"),
        .count("maxEventsPerBatch", \.maxEventsPerBatch, 1...1_000).about(.httpAPI, "Events in one batch_events call"),
        .optionalCount("backendEventsPerSecond", \.backendEventsPerSecond, requestRateRange)
            .about(.httpAPI, "Events each app may publish per second (more: 429)"),
        .optionalCount("readRequestsPerSecond", \.readRequestsPerSecond, requestRateRange)
            .about(.httpAPI, "Channel reads each app may make per second (more: 429)"),
        .count("maxChannelNameLength", \.maxChannelNameLength, 1...1_024).about(.channels, "Longest channel name"),
        .count("maxEventNameLength", \.maxEventNameLength, 1...1_024).about(.channels, "Longest event name"),
        .count("maxEventDataBytes", \.maxEventDataBytes, 1...16_777_216, unit: .bytes)
            .about(.channels, "Largest event data, from clients and the HTTP API"),
        .count("clientEventsPerSecond", \.clientEventsPerSecond, clientEventRange)
            .about(.channels, "Client events each connection may send per second (more: 4301)"),
        .count("maxPresenceMembers", \.maxPresenceMembers, presenceMemberRange).about(.channels, "Distinct users in one presence channel"),
        .count("maxPresenceUserInfoBytes", \.maxPresenceUserInfoBytes, 2...1_048_576, unit: .bytes)
            .about(.channels, "Largest presence user_info"),
        .count("maxSubscriptions", \.maxSubscriptions, 1...100_000_000).about(.channels, "Subscriptions across all connections"),
        .count("maxChannelsPerConnection", \.maxChannelsPerConnection, 1...100_000).about(.channels, "Channels one connection may be subscribed to"),
        .count("subscriptionChangesPerSecond", \.subscriptionChangesPerSecond, 1...100_000,
               defaultNote: " (after a burst of `maxChannelsPerConnection`)")
            .about(.channels, "Subscribes and unsubscribes each connection may send per second"),
        .seconds("cacheTTL", \.cacheTTL, atMost: 86_400).about(.channels, "Seconds a cache channel keeps its last event"),
        .count("maxCachedChannels", \.maxCachedChannels, 0...1_000_000).about(.channels, "Cache channels whose last event the hub keeps"),
        .seconds("webhookBatchWindow", \.webhookBatchWindow, atMost: 60, zeroAllowed: true)
            .about(.webhooks, "Seconds a target's events gather before one POST"),
        .seconds("webhookAttemptTimeout", \.webhookAttemptTimeout, atMost: 60).about(.webhooks, "Seconds one POST may take"),
        .seconds("webhookRetryDuration", \.webhookRetryDuration, atMost: 86_400, zeroAllowed: true)
            .about(.webhooks, "Seconds a failed webhook is retried, with back-off"),
        .seconds("webhookFirstRetryDelay", \.webhookFirstRetryDelay, atMost: 60).about(.webhooks, "Seconds before the first retry"),
        .seconds("webhookShutdownWait", \.webhookShutdownWait, atMost: 300, zeroAllowed: true)
            .about(.webhooks, "Seconds a stopping hub waits for pending webhooks"),
        .count("maxQueuedWebhooks", \.maxQueuedWebhooks, 1...10_000_000).about(.webhooks, "Webhook events waiting for delivery"),
        .count("maxQueuedWebhookBytes", \.maxQueuedWebhookBytes, 1_048_576...17_179_869_184, unit: .bytes)
            .about(.webhooks, "Bytes of webhook events waiting for delivery"),
        .count("maxWebhookBatchBytes", \.maxWebhookBatchBytes, 4_096...16_777_216, unit: .bytes).about(.webhooks, "Largest webhook POST body"),
    ]
}
