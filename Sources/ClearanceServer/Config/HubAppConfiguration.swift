import Clearance
import ClearanceSigning

/// One app the hub serves: its credentials and switches.
///
/// `description` never shows the secret or the encryption master key.
public struct HubAppConfiguration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The app id, used by the HTTP API (`/apps/{id}/…`).
    public var id: String
    /// The app key, used by clients (`/app/{key}`) and in `auth` signatures.
    public var key: String
    /// The app secret that signs channel authorizations and HTTP API requests.
    public var secret: String
    /// Base64 of the 32-byte master key for `private-encrypted-` channels, when the hub's auth
    /// endpoint should authorize them.
    public var encryptionMasterKey: String?
    /// A disabled app refuses connections with close code 4003. Default `true`.
    public var enabled: Bool
    /// Most simultaneous connections for this app, authorized or not; more are closed with 4004.
    /// `nil`: the app's part of the hub's ``HubConnectionLimits/maxConnections`` (``HubConnectionLimits/appShare``,
    /// a quarter by default, when the hub serves more than one app). At most 1,000,000.
    public var maxConnections: Int?
    /// Most distinct users in one of this app's presence channels; `nil`: the hub's
    /// ``HubChannelLimits/maxPresenceMembers``. 1 to 100,000.
    public var maxPresenceMembers: Int?
    /// Client events each of this app's connections may send per second; `nil`: the hub's
    /// ``HubChannelLimits/clientEventsPerSecond``. 0 to 10,000.
    public var clientEventsPerSecond: Int?
    /// Events this app's backend may publish per second through the HTTP API (an event to three
    /// channels counts three); past it the API answers 429. `nil`: the hub's
    /// ``HubHTTPAPILimits/backendEventsPerSecond``. 1 to 1,000,000. Each node of a cluster counts its own.
    public var backendEventsPerSecond: Int?
    /// Reads of this app's HTTP API (channels, a channel, its users) per second; past it the API
    /// answers 429. `nil`: the hub's ``HubHTTPAPILimits/readRequestsPerSecond``. 1 to 1,000,000. Each
    /// node of a cluster counts its own.
    public var readRequestsPerSecond: Int?
    /// Whether this app's connections must authorize themselves: a connection that has neither
    /// signed in (`pusher:signin`) nor subscribed to a `private-…` or `presence-…` channel within
    /// ``authorizedConnectionTimeout`` is closed with 4009 ("Connection not authorized within
    /// timeout"). Until it has, it counts against ``maxConnections`` like any other (so turning
    /// this on never weakens that bound), and against its address's
    /// ``HubConnectionLimits/maxUnauthorizedConnectionsPerIP``. Default `false`.
    public var authorizedConnections: Bool
    /// Whether the subscribers of this app's channels (presence channels excepted: their members
    /// say more) get `pusher_internal:subscription_count` with the channel's number of
    /// subscribers across the cluster when it changes, at most once per channel per second and
    /// once after the last change; a webhook target may ask for `subscription_count` under the same
    /// coalescing. Default `false`.
    public var subscriptionCount: Bool
    /// Seconds a connection of an app with ``authorizedConnections`` has to authorize itself;
    /// `nil`: 30. More than 0, at most 86,400.
    public var authorizedConnectionTimeout: Double?
    /// Whether clients may send `client-` events. Default `true`.
    public var clientEvents: Bool
    /// Where the app's webhooks go (none by default); see ``WebhookTarget``.
    public var webhooks: [WebhookTarget]
    /// The web origins (`scheme://host[:port]`, no path) whose pages may connect and call the
    /// development auth endpoints; nil (the default): every origin. A browser's WebSocket
    /// upgrade from another origin is refused with 403; a request without `Origin` (not a
    /// browser) is always accepted. See ``originAllowlist()``.
    public var allowedOrigins: [String]?
    /// The app's channel history: recent events kept per channel, so that a client that comes
    /// back gets what it missed (see ``ChannelHistoryConfiguration``). `nil` (the default): none.
    public var history: ChannelHistoryConfiguration?

    /// Creates an app configuration.
    public init(
        id: String,
        key: String,
        secret: String,
        encryptionMasterKey: String? = nil,
        enabled: Bool = true,
        maxConnections: Int? = nil,
        clientEvents: Bool = true,
        webhooks: [WebhookTarget] = [],
        allowedOrigins: [String]? = nil,
        maxPresenceMembers: Int? = nil,
        clientEventsPerSecond: Int? = nil,
        backendEventsPerSecond: Int? = nil,
        readRequestsPerSecond: Int? = nil,
        authorizedConnections: Bool = false,
        authorizedConnectionTimeout: Double? = nil,
        subscriptionCount: Bool = false
    ) {
        self.id = id
        self.key = key
        self.secret = secret
        self.encryptionMasterKey = encryptionMasterKey
        self.enabled = enabled
        self.maxConnections = maxConnections
        self.clientEvents = clientEvents
        self.webhooks = webhooks
        self.allowedOrigins = allowedOrigins
        self.maxPresenceMembers = maxPresenceMembers
        self.clientEventsPerSecond = clientEventsPerSecond
        self.backendEventsPerSecond = backendEventsPerSecond
        self.readRequestsPerSecond = readRequestsPerSecond
        self.authorizedConnections = authorizedConnections
        self.authorizedConnectionTimeout = authorizedConnectionTimeout
        self.subscriptionCount = subscriptionCount
    }

    /// How long a connection has to authorize itself: nil when ``authorizedConnections`` is off.
    public var authorizationTimeout: Duration? {
        authorizedConnections ? .seconds(authorizedConnectionTimeout ?? Self.defaultAuthorizedConnectionTimeout) : nil
    }

    /// The default of ``authorizedConnectionTimeout``: 30 seconds.
    public static let defaultAuthorizedConnectionTimeout: Double = 30

    /// Decodes an app; `enabled` and `clientEvents` default to `true`, `webhooks` to none.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for a member an
    ///   app does not have (in it or in its webhooks), or a decoding error.
    public init(from decoder: any Decoder) throws {
        self = try ConfigurationMember.decode(Self.members, from: decoder, startingFrom: Self(id: "", key: "", secret: ""))
    }

    /// Checks this app on its own, under the hub's `limits`: usable credentials, limits in range,
    /// history, webhook targets and allowed origins (``HubConfiguration/validate()`` also checks
    /// that ids and keys are unique across apps).
    /// - Throws: the first problem, as a ``HubConfigurationError``.
    public func validate(limits: HubLimits) throws(HubConfigurationError) {
        do {
            _ = try RESTRequestSigner(appID: id, key: key, secret: secret)
            _ = try signer(limits: limits)
        } catch {
            throw .invalidApp(id: id, reason: error)
        }
        if let member = firstInvalidLimit() { throw .invalidLimit(member) }
        if let problem = history?.problem { throw .invalidHistory(appID: id, reason: problem) }
        var targets = Set<WebhookTargetID>()
        for target in webhooks {
            try target.validate(appID: id)
            guard targets.insert(WebhookTargetID(appID: id, target: target)).inserted else {
                throw .duplicateWebhookTarget(appID: id, url: target.redactedURL)
            }
        }
        _ = try originAllowlist()
    }

    /// The name (`apps.<member>`) of the first of this app's limits outside its allowed range, if any.
    func firstInvalidLimit() -> String? {
        let checks: [(String, Int?, ClosedRange<Int>)] = [
            ("maxConnections", maxConnections, HubLimits.connectionRange),
            ("maxPresenceMembers", maxPresenceMembers, HubLimits.presenceMemberRange),
            ("clientEventsPerSecond", clientEventsPerSecond, HubLimits.clientEventRange),
            ("backendEventsPerSecond", backendEventsPerSecond, HubLimits.requestRateRange),
            ("readRequestsPerSecond", readRequestsPerSecond, HubLimits.requestRateRange),
        ]
        if let first = checks.first(where: { _, value, range in value.map { !range.contains($0) } ?? false }) { return "apps.\(first.0)" }
        if let timeout = authorizedConnectionTimeout, !(timeout > 0 && timeout <= 86_400) { return "apps.authorizedConnectionTimeout" }
        return nil
    }

    /// The signer for this app's channel authorizations and sign-ins, under the hub's limits.
    public func signer(limits: HubLimits) throws(SigningError) -> ChannelAuthSigner {
        try ChannelAuthSigner(
            key: key, secret: secret, masterKeyBase64: encryptionMasterKey,
            limits: ChannelNameLimits(maxLength: limits.channels.maxChannelNameLength))
    }

    /// ``allowedOrigins`` read as origins.
    /// - Throws: ``HubConfigurationError/invalidAllowedOrigin(appID:origin:problem:)`` for the
    ///   first entry that is not an origin.
    public func originAllowlist() throws(HubConfigurationError) -> OriginAllowlist {
        guard let allowedOrigins else { return .any }
        var origins: [WebOrigin] = []
        for text in allowedOrigins {
            guard let origin = WebOrigin(text) else {
                throw .invalidAllowedOrigin(appID: id, origin: text, problem: WebOrigin.problem(in: text) ?? .notAnOrigin)
            }
            origins.append(origin)
        }
        return OriginAllowlist(origins)
    }

    /// `HubAppConfiguration(id: …, key: …, secret: <redacted>, …)`; webhook header values are redacted too.
    public var description: String {
        let masterKey = encryptionMasterKey == nil ? "none" : Redactor.mask
        return "HubAppConfiguration(id: \(id), key: \(key), secret: \(Redactor.mask), encryptionMasterKey: \(masterKey), "
            + "enabled: \(enabled), maxConnections: \(maxConnections.map(String.init) ?? "unlimited"), clientEvents: \(clientEvents), "
            + "webhooks: \(webhooks), allowedOrigins: \(allowedOrigins.map { "[" + $0.joined(separator: ", ") + "]" } ?? "any")"
            + limitsDescription + ")"
    }

    /// `, maxPresenceMembers: 20, …` for the limits this app sets (none: empty).
    private var limitsDescription: String {
        let limits: [(String, Int?)] = [
            ("maxPresenceMembers", maxPresenceMembers), ("clientEventsPerSecond", clientEventsPerSecond),
            ("backendEventsPerSecond", backendEventsPerSecond), ("readRequestsPerSecond", readRequestsPerSecond),
        ]
        return limits.compactMap { name, value in value.map { ", \(name): \($0)" } }.joined()
            + (authorizedConnections ? ", authorizedConnections: \(authorizedConnectionTimeout ?? Self.defaultAuthorizedConnectionTimeout) s" : "")
            + (subscriptionCount ? ", subscriptionCount: true" : "")
            + (history.map { ", history: \($0)" } ?? "")
    }

    /// The members an app object of a configuration file knows, one per stored property: `id`,
    /// `key` and `secret` are required; the others keep the defaults of the initializer.
    private static let members: [ConfigurationMember<Self>] = [
        .required("id", \.id), .required("key", \.key), .required("secret", \.secret),
        .optional("encryptionMasterKey", \.encryptionMasterKey), .optional("enabled", \.enabled),
        .optional("maxConnections", \.maxConnections), .optional("maxPresenceMembers", \.maxPresenceMembers),
        .optional("clientEventsPerSecond", \.clientEventsPerSecond), .optional("backendEventsPerSecond", \.backendEventsPerSecond),
        .optional("readRequestsPerSecond", \.readRequestsPerSecond), .optional("authorizedConnections", \.authorizedConnections),
        .optional("authorizedConnectionTimeout", \.authorizedConnectionTimeout), .optional("clientEvents", \.clientEvents),
        .optional("webhooks", \.webhooks), .optional("allowedOrigins", \.allowedOrigins), .optional("subscriptionCount", \.subscriptionCount),
        .optional("history", \.history),
    ]
}
