/// An app's channel history (`"history"` in its configuration): the hub keeps each channel's
/// recent events, so that a client that comes back after a dropped connection gets the ones it
/// missed, once and in order (the client sends its last position in `pusher:subscribe`; see the
/// operator's guide, "Connection recovery").
///
/// ```json
/// "history": {"size": 300, "ttl": 120, "channels": ["orders-", "private-orders-"]}
/// ```
///
/// Every event a subscriber receives on a covered channel is kept (HTTP API and client events),
/// none of the `pusher_internal:` frames. Presence channels are never covered: their member list
/// is sent again at each subscription. The hub-wide bound is
/// ``HubChannelLimits/maxHistoryBytes`` (each app at most its ``HubConnectionLimits/appShare``
/// of it when the hub serves several).
public struct ChannelHistoryConfiguration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Most events kept per channel: 1 to 10,000.
    public var size: Int
    /// Seconds an event is kept: more than 0, at most 86,400.
    public var ttl: Double
    /// The prefixes of the channels covered (`["orders-"]`); `nil`: every channel but presence ones.
    public var channels: [String]?

    /// The allowed range of ``size``.
    public static let sizeRange = 1...10_000
    /// The longest ``ttl``, in seconds.
    public static let maxTTL: Double = 86_400

    /// Keeps the last `size` events of each channel (of those whose names start with one of
    /// `channels`, when given) for `ttl` seconds.
    public init(size: Int, ttl: Double, channels: [String]? = nil) {
        self.size = size
        self.ttl = ttl
        self.channels = channels
    }

    /// Whether the history covers `channel`: not a presence channel, and its name starts with
    /// one of ``channels`` when they are given.
    public func covers(_ channel: String) -> Bool {
        guard !channel.hasPrefix("presence-") else { return false }
        guard let channels else { return true }
        return channels.contains { channel.hasPrefix($0) }
    }

    /// Why these settings cannot be used, if they cannot.
    public var problem: String? {
        if !Self.sizeRange.contains(size) { return "size is \(size): it must be 1 to 10000 events" }
        if !(ttl > 0 && ttl <= Self.maxTTL) { return "ttl is \(ttl): it must be more than 0 and at most 86400 seconds" }
        if let channels {
            if channels.isEmpty { return "channels is empty: list at least one prefix, or leave it out to cover every channel" }
            if channels.contains(where: \.isEmpty) { return "channels holds an empty prefix: leave channels out to cover every channel" }
            if let presence = channels.first(where: { $0.hasPrefix("presence-") }) {
                return "channels lists \(presence.debugDescription), but presence channels have no history"
            }
        }
        return nil
    }

    /// `size 300, ttl 120 s, channels orders-, private-orders-`.
    public var description: String {
        "size \(size), ttl \(ttl) s" + (channels.map { ", channels " + $0.joined(separator: ", ") } ?? "")
    }

    /// Decodes `{"size": …, "ttl": …, "channels": […]}`: `size` and `ttl` required.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for another
    ///   member, or a decoding error.
    public init(from decoder: any Decoder) throws {
        self = try ConfigurationMember.decode(Self.members, from: decoder, startingFrom: Self(size: 0, ttl: 0))
    }

    /// The members of a `history` object.
    private static let members: [ConfigurationMember<Self>] = [.required("size", \.size), .required("ttl", \.ttl), .optional("channels", \.channels)]
}
