import Clearance
import Foundation

/// Where an app's webhooks go: a URL, the events it wants, extra headers, and which channels.
///
/// In a configuration file, a member of the app's `webhooks` array:
/// ```json
/// {"url": "https://hooks.example.com/pusher", "events": ["channel_occupied", "channel_vacated"],
///  "headers": {"Authorization": "Bearer …"}, "filter": {"channelPrefix": "presence-"}}
/// ```
/// Plain `http` is allowed to a loopback host only, unless ``allowInsecureHTTP`` is set (custom
/// headers often carry tokens). `description` and the logs never show header values, nor any
/// part of the URL past its scheme, host and port.
public struct WebhookTarget: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The URL the hub POSTs to.
    public var url: String
    /// The events sent there; at least one.
    public var events: [WebhookEventKind]
    /// Headers added to every POST (an `Authorization` the receiver checks, say). They may not
    /// replace `Content-Type`, `X-Pusher-Key`, `X-Pusher-Signature`, nor the headers HTTP itself
    /// manages (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`).
    public var headers: [String: String]
    /// Which channels' events are sent (all by default).
    public var filter: WebhookChannelFilter
    /// Allows plain `http` to a host that is not loopback. Default `false`.
    public var allowInsecureHTTP: Bool

    /// Headers a target may not set.
    static let reservedHeaders: Set<String> = [
        "content-type", "x-pusher-key", "x-pusher-signature", "host", "content-length", "transfer-encoding", "connection",
    ]

    /// Creates a target.
    public init(
        url: String,
        events: [WebhookEventKind],
        headers: [String: String] = [:],
        filter: WebhookChannelFilter = WebhookChannelFilter(),
        allowInsecureHTTP: Bool = false
    ) {
        self.url = url
        self.events = events
        self.headers = headers
        self.filter = filter
        self.allowInsecureHTTP = allowInsecureHTTP
    }

    /// Decodes a target; `headers`, `filter` and `allowInsecureHTTP` are optional.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for a member
    ///   a target does not have, ``HubConfigurationError/unknownWebhookEvent(_:)`` for an event
    ///   name Pusher does not have, or a decoding error.
    public init(from decoder: any Decoder) throws {
        self = try ConfigurationMember.decode(Self.members, from: decoder, startingFrom: Self(url: "", events: []))
    }

    /// The members of a target object: `url` and `events` (Pusher's event names) are required.
    private static let members: [ConfigurationMember<Self>] = [
        .required("url", \.url),
        ConfigurationMember("events") { container, key, target in
            target.events = try container.decode([String].self, forKey: key).map { name in
                guard let kind = WebhookEventKind(rawValue: name) else { throw HubConfigurationError.unknownWebhookEvent(name) }
                return kind
            }
        },
        .optional("headers", \.headers), .optional("filter", \.filter), .optional("allowInsecureHTTP", \.allowInsecureHTTP),
    ]

    /// Whether this target wants `event`.
    public func wants(_ event: WebhookEvent) -> Bool {
        events.contains(event.kind) && filter.admits(event.channel)
    }

    /// Checks the URL, the events and the headers of a target of app `appID`.
    /// - Throws: ``HubConfigurationError/invalidWebhookURL(appID:reason:)``,
    ///   ``HubConfigurationError/insecureWebhookURL(appID:host:)``,
    ///   ``HubConfigurationError/noWebhookEvents(appID:)``,
    ///   ``HubConfigurationError/reservedWebhookHeader(appID:name:)`` or
    ///   ``HubConfigurationError/invalidWebhookHeader(appID:name:)``.
    public func validate(appID: String) throws(HubConfigurationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty
        else { throw .invalidWebhookURL(appID: appID, reason: "not an absolute URL with a host") }
        switch scheme {
        case "https":
            break
        case "http":
            guard allowInsecureHTTP || Origin.isLoopback(host: host) else { throw .insecureWebhookURL(appID: appID, host: host) }
        default:
            throw .invalidWebhookURL(appID: appID, reason: "the scheme is \(scheme), not http or https")
        }
        guard !events.isEmpty else { throw .noWebhookEvents(appID: appID) }
        for (name, value) in headers {
            guard !Self.reservedHeaders.contains(name.lowercased()) else { throw .reservedWebhookHeader(appID: appID, name: name) }
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte), value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw .invalidWebhookHeader(appID: appID, name: name)
            }
        }
    }

    /// The URL's scheme, host and port only, for logs: its path (a Slack-style URL carries its
    /// token there), user, password, query and fragment never appear.
    public var redactedURL: String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return Redactor.mask }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)\(components.port.map { ":\($0)" } ?? "")"
    }

    /// `WebhookTarget(url: …, events: […], headers: [Name: <redacted>], …)`.
    public var description: String {
        let shownHeaders = headers.keys.sorted().map { "\($0): \(Redactor.mask)" }.joined(separator: ", ")
        return "WebhookTarget(url: \(redactedURL), events: [\(events.map(\.rawValue).joined(separator: ", "))], headers: [\(shownHeaders)], "
            + "filter: \(filter.channelPrefix ?? "")*\(filter.channelSuffix ?? ""), allowInsecureHTTP: \(allowInsecureHTTP))"
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
