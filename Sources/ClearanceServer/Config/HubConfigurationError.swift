import Clearance
import ClearanceSigning

/// Why a hub configuration cannot be used. Messages never contain secrets or tokens.
public enum HubConfigurationError: ClearanceError, Equatable {
    /// The file could not be read.
    case unreadableFile(path: String)
    /// The file is not valid JSON or does not have the configuration's shape.
    case malformedFile(path: String, reason: String)
    /// No app is configured.
    case noApps
    /// The port is outside 0…65535.
    case invalidPort(Int)
    /// Two apps share an id.
    case duplicateAppID(String)
    /// Two apps share a key.
    case duplicateAppKey(String)
    /// An app's id, key, secret or master key is unusable.
    case invalidApp(id: String, reason: SigningError)
    /// A limit is outside its allowed range.
    case invalidLimit(String)
    /// Two limits cannot be used together (the message says why).
    case conflictingLimits(String)
    /// An entry of an app's `allowedOrigins` is not an origin `scheme://host[:port]`.
    case invalidAllowedOrigin(appID: String, origin: String, problem: WebOriginProblem)
    /// The configuration sets a limit that no longer exists; `replacement` took its place.
    case removedLimit(String, replacement: String)
    /// An environment variable of a limit (`CLEARANCE_LIMITS_…`) holds text of another type.
    case invalidEnvironmentValue(variable: String, expected: String)
    /// A webhook target lists an event name Pusher does not have.
    case unknownWebhookEvent(String)
    /// A webhook target's URL is not an absolute `http` or `https` URL.
    case invalidWebhookURL(appID: String, reason: String)
    /// A webhook target's URL is plain `http` to a host that is not loopback, without
    /// `"allowInsecureHTTP": true`.
    case insecureWebhookURL(appID: String, host: String)
    /// A webhook target lists no events.
    case noWebhookEvents(appID: String)
    /// A webhook target's header would replace one the hub sets (`Content-Type`,
    /// `X-Pusher-Key`, `X-Pusher-Signature`, or one HTTP manages).
    case reservedWebhookHeader(appID: String, name: String)
    /// A webhook target's header has a name or value HTTP does not allow (its value is never shown).
    case invalidWebhookHeader(appID: String, name: String)
    /// Two webhook targets of one app have the same URL, events and filter (the one target
    /// they name, ``WebhookTargetID``, would get each event twice).
    case duplicateWebhookTarget(appID: String, url: String)
    /// The metrics endpoint (``HubMetricsConfiguration``) is unusable (the message says why).
    case invalidMetricsEndpoint(String)
    /// An object of the file has a member it does not know (``ConfigurationMembers``): `path`
    /// names it from the top of the file (`apps[0].alowedOrigins`), `suggestion` is the closest
    /// known name if one is close, `known` the names the object knows.
    case unknownMember(path: String, suggestion: String?, known: [String])
    /// An app's `history` (``ChannelHistoryConfiguration``) is unusable: `reason` says which
    /// member and its allowed range.
    case invalidHistory(appID: String, reason: String)

    public static let codeDomain = "hub.configuration"

    /// The app's signing error, for ``invalidApp(id:reason:)``.
    public var underlying: (any Error)? {
        if case let .invalidApp(_, reason) = self { return reason }
        return nil
    }

    /// Each case's code and message (which never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case let .unreadableFile(path): .init(.unreadableFile, "Cannot read the configuration file \(path).")
        case let .malformedFile(path, reason): .init(.malformedFile, "The configuration file \(path) is not usable: \(reason).")
        case .noApps: .init(.noApps, "The configuration has no apps.")
        case let .invalidPort(port): .init(.invalidPort, "The port \(port) is outside 0…65535.")
        case let .duplicateAppID(id): .init(.duplicateAppID, "Two apps have the id \(id).")
        case let .duplicateAppKey(key): .init(.duplicateAppKey, "Two apps have the key \(key).")
        case let .invalidApp(id, reason): .init(.invalidApp, "The app \(id) is not usable: \(reason.message)")
        case let .invalidLimit(name): .init(.invalidLimit, "The limit \(name) is out of range\(HubLimits.allowedRange(of: name).map { " (allowed: \($0))" } ?? "").")
        case let .conflictingLimits(reason): .init(.conflictingLimits, "The limits do not fit together: \(reason).")
        case let .invalidAllowedOrigin(id, origin, problem):
            .init(.invalidAllowedOrigin, "The app \(id) allows the origin '\(origin)', which is not usable: \(problem) (write an origin as https://app.example.com or http://localhost:8080).")
        case let .removedLimit(name, replacement): .init(.removedLimit, "The limit \(name) was removed: set \(replacement) instead (see the operator's guide, \"Hub limits\").")
        case let .invalidEnvironmentValue(variable, expected):
            .init(.invalidEnvironmentValue, "The environment variable \(variable) is not usable: it must hold \(expected) (or be empty: unset).")
        case let .unknownWebhookEvent(name):
            .init(.unknownWebhookEvent, "The webhook event \(name) is unknown (known: \(WebhookEventKind.allCases.map(\.rawValue).joined(separator: ", "))).")
        case let .invalidWebhookURL(appID, reason): .init(.invalidWebhookURL, "A webhook URL of the app \(appID) is not usable: \(reason).")
        case let .insecureWebhookURL(appID, host):
            .init(.insecureWebhookURL, "A webhook URL of the app \(appID) is plain http to \(host), which is not loopback: use https, "
                + "or set \"allowInsecureHTTP\": true on the target (its headers and events would cross the network in the clear).")
        case let .noWebhookEvents(appID): .init(.noWebhookEvents, "A webhook target of the app \(appID) lists no events.")
        case let .reservedWebhookHeader(appID, name):
            .init(.reservedWebhookHeader, "A webhook target of the app \(appID) sets the header \(name), which the hub sets itself.")
        case let .invalidWebhookHeader(appID, name):
            .init(.invalidWebhookHeader, "A webhook target of the app \(appID) has a header \(name.debugDescription) whose name or value HTTP does not allow.")
        case let .duplicateWebhookTarget(appID, url):
            .init(.duplicateWebhookTarget, "Two webhook targets of the app \(appID) have the same URL (\(url)), events and filter: list it once.")
        case let .invalidMetricsEndpoint(reason): .init(.invalidMetricsEndpoint, "The metrics endpoint is not usable: \(reason).")
        case let .unknownMember(path, suggestion?, _):
            .init(.unknownMember, "The configuration has an unknown member \(path): did you mean \(suggestion)?")
        case let .invalidHistory(appID, reason): .init(.invalidHistory, "The history of the app \(appID) is not usable: \(reason).")
        case let .unknownMember(path, nil, known):
            .init(.unknownMember, "The configuration has an unknown member \(path) (known here: \(known.joined(separator: ", "))).")
        }
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `hub.configuration.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case unreadableFile, malformedFile, noApps, invalidPort, duplicateAppID, duplicateAppKey, invalidApp, invalidLimit
        case conflictingLimits, removedLimit, unknownWebhookEvent, invalidWebhookURL, insecureWebhookURL, noWebhookEvents
        case reservedWebhookHeader, invalidWebhookHeader, invalidAllowedOrigin, invalidMetricsEndpoint, unknownMember
        case duplicateWebhookTarget, invalidEnvironmentValue, invalidHistory
    }
}
