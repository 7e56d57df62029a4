import Foundation

/// The hub's protocol limits and timers, in four groups: ``connections``, ``httpAPI``,
/// ``channels`` (channels and events) and ``webhooks``. Every member has a default, and a
/// configuration file may set any subset of them, each in the object of its group
/// (`"limits": {"connections": {"activityTimeout": 60}}`, `limits.connections.activityTimeout`
/// in code; the flat names of earlier versions still load, with a warning, and still compile,
/// with a deprecation warning), or its environment variable (``applyingEnvironment(_:)``).
///
/// Durations are in seconds (fractions allowed, so tests can run fast). Every member has an
/// allowed range (listed on each member; ``HubConfiguration/validate()`` refuses a value outside
/// it with ``HubConfigurationError/invalidLimit(_:)``), so that no setting, however large, can
/// overflow a timer or an allocation.
@dynamicMemberLookup
public struct HubLimits: Sendable, Hashable, Codable {
    /// WebSocket connections: their timers, sizes and the budgets they share (`"connections"`).
    public var connections = HubConnectionLimits()
    /// The HTTP API: its sockets, requests and rates (`"httpAPI"`).
    public var httpAPI = HubHTTPAPILimits()
    /// Channels and events: names, sizes, presence, subscriptions and the cache (`"channels"`).
    public var channels = HubChannelLimits()
    /// Webhooks: batching, retries and the queue (`"webhooks"`).
    public var webhooks = HubWebhookLimits()

    /// A setting of ``connections`` by its flat name, as earlier versions had it (`limits.activityTimeout`, now
    /// `limits.connections.activityTimeout`): still compiles, with a deprecation warning naming the group.
    @available(*, deprecated, message: "the connections settings moved to their group: limits.connections.<name>")
    public subscript<Value>(dynamicMember member: WritableKeyPath<HubConnectionLimits, Value>) -> Value {
        get { connections[keyPath: member] }
        set { connections[keyPath: member] = newValue }
    }

    /// A setting of ``httpAPI`` by its flat name, as earlier versions had it (`limits.httpIdleTimeout`, now
    /// `limits.httpAPI.httpIdleTimeout`): still compiles, with a deprecation warning naming the group.
    @available(*, deprecated, message: "the httpAPI settings moved to their group: limits.httpAPI.<name>")
    public subscript<Value>(dynamicMember member: WritableKeyPath<HubHTTPAPILimits, Value>) -> Value {
        get { httpAPI[keyPath: member] }
        set { httpAPI[keyPath: member] = newValue }
    }

    /// A setting of ``channels`` by its flat name, as earlier versions had it (`limits.maxChannelNameLength`, now
    /// `limits.channels.maxChannelNameLength`): still compiles, with a deprecation warning naming the group.
    @available(*, deprecated, message: "the channels settings moved to their group: limits.channels.<name>")
    public subscript<Value>(dynamicMember member: WritableKeyPath<HubChannelLimits, Value>) -> Value {
        get { channels[keyPath: member] }
        set { channels[keyPath: member] = newValue }
    }

    /// A setting of ``webhooks`` by its flat name, as earlier versions had it (`limits.webhookBatchWindow`, now
    /// `limits.webhooks.webhookBatchWindow`): still compiles, with a deprecation warning naming the group.
    @available(*, deprecated, message: "the webhooks settings moved to their group: limits.webhooks.<name>")
    public subscript<Value>(dynamicMember member: WritableKeyPath<HubWebhookLimits, Value>) -> Value {
        get { webhooks[keyPath: member] }
        set { webhooks[keyPath: member] = newValue }
    }

    /// The defaults listed on each member.
    public init() {}

    /// The defaults, changed by `adjust`: `HubLimits { $0.connections.closeTimeout = 1 }`.
    public init(_ adjust: (inout HubLimits) -> Void) {
        adjust(&self)
    }

    /// Decodes the members present and keeps the default for the others.
    /// - Throws: ``HubConfigurationError/removedLimit(_:replacement:)`` for `maxQueuedFrames`
    ///   (frames are no longer counted: ``HubConnectionLimits/maxOutboundBytes`` counts bytes) and
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

    /// One app's part of a budget of `total` that the apps share
    /// (``HubConnectionLimits/appShare``; the whole of it when the hub serves `apps` ≤ 1), at least 1.
    package func appPart(of total: Int, apps: Int) -> Int {
        guard apps > 1 else { return total }
        return max(1, Int((Double(total) * connections.appShare).rounded(.down)))
    }

    /// The largest event frame the hub sends: its data, name and channel, and the JSON around them.
    var largestEventFrame: Int {
        channels.maxEventDataBytes + channels.maxEventNameLength + channels.maxChannelNameLength + 64
    }

    /// Why two members cannot be used together, if they cannot.
    func conflict() -> String? {
        let (perConnection, total) = (connections.maxOutboundBytes, connections.maxTotalOutboundBytes)
        if perConnection < 2 * largestEventFrame {
            return "maxOutboundBytes (\(perConnection)) must be at least twice the largest event frame (\(largestEventFrame) bytes "
                + "with maxEventDataBytes \(channels.maxEventDataBytes)): a connection could not receive two events in a row"
        }
        if total < perConnection {
            return "maxTotalOutboundBytes (\(total)) must be at least maxOutboundBytes (\(perConnection))"
        }
        return nil
    }

    /// The allowed range of a member (or `apps.maxConnections`), for error messages.
    static func allowedRange(of member: String) -> String? {
        let name = member.hasPrefix("apps.") ? String(member.dropFirst("apps.".count)) : member
        if name == "authorizedConnectionTimeout" { return "more than 0 to 86400 seconds" }
        return settings.first { $0.name == name }?.range
    }

    /// The range of ``HubConnectionLimits/maxConnections``, and of an app's.
    static let connectionRange = 0...1_000_000
    /// The range of ``HubChannelLimits/maxPresenceMembers``, and of an app's.
    static let presenceMemberRange = 1...100_000
    /// The range of ``HubChannelLimits/clientEventsPerSecond``, and of an app's.
    static let clientEventRange = 0...10_000
    /// The range of ``HubHTTPAPILimits/backendEventsPerSecond`` and ``HubHTTPAPILimits/readRequestsPerSecond``, and of an app's.
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
        .count("activityTimeout", \.connections.activityTimeout, 1...3_600, unit: .seconds)
            .about(.connections, "Seconds of client silence before the hub pings (announced as activity_timeout)"),
        .seconds("pongTimeout", \.connections.pongTimeout, atMost: 3_600).about(.connections, "Seconds to answer the hub's ping before a close with 4201"),
        .flag("serverPings", \.connections.serverPings).about(.connections, "Whether the hub pings silent clients (off: inactivityTimeout closes them)"),
        .seconds("inactivityTimeout", \.connections.inactivityTimeout, atMost: 604_800)
            .about(.connections, "Seconds of total silence before a close with 4202, when serverPings is off"),
        .count("maxMessageBytes", \.connections.maxMessageBytes, 1_024...16_777_216, unit: .bytes)
            .about(.connections, "Largest WebSocket message the hub reads (bigger: close with 1009)"),
        .count("maxConnections", \.connections.maxConnections, connectionRange).about(.connections, "WebSocket connections across all apps (more: 4100)"),
        .optionalCount("maxConnectionsPerIP", \.connections.maxConnectionsPerIP, 1...1_000_000)
            .about(.connections, "Sockets from one IP address (more: closed at accept)"),
        .count("maxUnauthorizedConnectionsPerIP", \.connections.maxUnauthorizedConnectionsPerIP, 1...1_000_000)
            .about(.connections, "Connections from one IP address not yet authorized, on apps that require it"),
        .count("maxOutboundBytes", \.connections.maxOutboundBytes, 65_536...1_073_741_824, unit: .bytes, rangeNote: ", ≥ 2 events")
            .about(.connections, "Bytes one WebSocket may leave unsent before a close with 4100"),
        .count("maxTotalOutboundBytes", \.connections.maxTotalOutboundBytes, 1_048_576...68_719_476_736, unit: .bytes,
               rangeNote: ", ≥ `maxOutboundBytes`").about(.connections, "Bytes all WebSockets together may leave unsent"),
        .seconds("closeTimeout", \.connections.closeTimeout, atMost: 600).about(.connections, "Seconds the hub waits for a client to answer its close"),
        .seconds("shutdownSpread", \.connections.shutdownSpread, atMost: 60, zeroAllowed: true)
            .about(.connections, "Seconds over which a stopping hub spreads its close frames"),
        .fraction("appShare", \.connections.appShare, atMost: 1)
            .about(.connections, "Largest part of each shared budget one app may hold, when the hub serves several (always with --apps-database)"),
        .seconds("terminationGracePeriod", \.connections.terminationGracePeriod, atMost: 86_400, zeroAllowed: true)
            .about(.connections, "Seconds after terminate_connections during which that user cannot come back"),
        .count("maxHTTPConnections", \.httpAPI.maxHTTPConnections, 1...1_000_000).about(.httpAPI, "Sockets that are not (yet) WebSockets"),
        .count("maxHTTPBodyBytes", \.httpAPI.maxHTTPBodyBytes, 1_024...67_108_864, unit: .bytes).about(.httpAPI, "Largest HTTP request body the hub reads"),
        .seconds("httpIdleTimeout", \.httpAPI.httpIdleTimeout, atMost: 3_600).about(.httpAPI, "Seconds an HTTP connection may make no progress"),
        .seconds("httpRequestTimeout", \.httpAPI.httpRequestTimeout, atMost: 3_600).about(.httpAPI, "Seconds within which a request's head and body must arrive"),
        .count("maxChannelsPerEvent", \.httpAPI.maxChannelsPerEvent, 1...10_000).about(.httpAPI, "Channels one HTTP API event may name"),
        .count("maxEventsPerBatch", \.httpAPI.maxEventsPerBatch, 1...1_000).about(.httpAPI, "Events in one batch_events call"),
        .optionalCount("backendEventsPerSecond", \.httpAPI.backendEventsPerSecond, requestRateRange)
            .about(.httpAPI, "Events each app may publish per second (more: 429)"),
        .optionalCount("readRequestsPerSecond", \.httpAPI.readRequestsPerSecond, requestRateRange)
            .about(.httpAPI, "Channel reads each app may make per second (more: 429)"),
        .count("maxChannelNameLength", \.channels.maxChannelNameLength, 1...1_024).about(.channels, "Longest channel name"),
        .count("maxEventNameLength", \.channels.maxEventNameLength, 1...1_024).about(.channels, "Longest event name"),
        .count("maxEventDataBytes", \.channels.maxEventDataBytes, 1...16_777_216, unit: .bytes)
            .about(.channels, "Largest event data, from clients and the HTTP API"),
        .count("clientEventsPerSecond", \.channels.clientEventsPerSecond, clientEventRange)
            .about(.channels, "Client events each connection may send per second (more: 4301)"),
        .count("maxPresenceMembers", \.channels.maxPresenceMembers, presenceMemberRange).about(.channels, "Distinct users in one presence channel"),
        .count("maxPresenceUserInfoBytes", \.channels.maxPresenceUserInfoBytes, 2...1_048_576, unit: .bytes)
            .about(.channels, "Largest presence user_info"),
        .count("maxSubscriptions", \.channels.maxSubscriptions, 1...100_000_000).about(.channels, "Subscriptions across all connections"),
        .count("maxChannelsPerConnection", \.channels.maxChannelsPerConnection, 1...100_000).about(.channels, "Channels one connection may be subscribed to"),
        .count("subscriptionChangesPerSecond", \.channels.subscriptionChangesPerSecond, 1...100_000,
               defaultNote: " (after a burst of `maxChannelsPerConnection`)")
            .about(.channels, "Subscribes and unsubscribes each connection may send per second"),
        .seconds("cacheTTL", \.channels.cacheTTL, atMost: 86_400).about(.channels, "Seconds a cache channel keeps its last event"),
        .count("maxCachedChannels", \.channels.maxCachedChannels, 0...1_000_000).about(.channels, "Cache channels whose last event the hub keeps"),
        .count("maxHistoryBytes", \.channels.maxHistoryBytes, 1_048_576...17_179_869_184, unit: .bytes)
            .about(.channels, "Bytes of channel history kept for every app together"),
        .seconds("webhookBatchWindow", \.webhooks.webhookBatchWindow, atMost: 60, zeroAllowed: true)
            .about(.webhooks, "Seconds a target's events gather before one POST"),
        .seconds("webhookAttemptTimeout", \.webhooks.webhookAttemptTimeout, atMost: 60).about(.webhooks, "Seconds one POST may take"),
        .seconds("webhookRetryDuration", \.webhooks.webhookRetryDuration, atMost: 86_400, zeroAllowed: true)
            .about(.webhooks, "Seconds a failed webhook is retried, with back-off"),
        .seconds("webhookFirstRetryDelay", \.webhooks.webhookFirstRetryDelay, atMost: 60).about(.webhooks, "Seconds before the first retry"),
        .seconds("webhookShutdownWait", \.webhooks.webhookShutdownWait, atMost: 300, zeroAllowed: true)
            .about(.webhooks, "Seconds a stopping hub waits for pending webhooks"),
        .count("maxQueuedWebhooks", \.webhooks.maxQueuedWebhooks, 1...10_000_000).about(.webhooks, "Webhook events waiting for delivery"),
        .count("maxQueuedWebhookBytes", \.webhooks.maxQueuedWebhookBytes, 1_048_576...17_179_869_184, unit: .bytes)
            .about(.webhooks, "Bytes of webhook events waiting for delivery"),
        .count("maxWebhookBatchBytes", \.webhooks.maxWebhookBatchBytes, 4_096...16_777_216, unit: .bytes).about(.webhooks, "Largest webhook POST body"),
    ]
}
