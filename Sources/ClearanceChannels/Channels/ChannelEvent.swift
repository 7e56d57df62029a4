import Foundation

/// One event received on a channel.
///
/// ``data`` is the payload as text: for the usual string-holding-JSON payload, the JSON text
/// (decode it with ``decode(_:decoder:)``); for encrypted channels, the decrypted text.
public struct ChannelEvent: Sendable, Hashable {
    /// The event name (`pusher:subscription_succeeded`, `pusher:member_added`,
    /// `pusher:subscription_count`, the app's names, …).
    public let name: String
    /// The channel it arrived on.
    public let channel: String
    /// The payload text, if any.
    public let data: String?
    /// For client events on presence channels: the sender's user id.
    public let userID: String?

    /// `pusher:cache_miss`: the name of the event a cache channel (`cache-`, `private-cache-`,
    /// `private-encrypted-cache-`, `presence-cache-`) delivers right after its subscription
    /// succeeded when the server keeps no last event for it. When it keeps one, that event comes
    /// instead, as any other.
    public static let cacheMiss = "pusher:cache_miss"

    /// Whether this is ``cacheMiss``: the cache channel had no last event to give.
    public var isCacheMiss: Bool { name == Self.cacheMiss }

    /// `pusher:subscription_count`: the name of the event that carries a channel's subscriber
    /// count, with data `{"subscription_count":N}`, as pusher-js re-emits the server's
    /// `pusher_internal:subscription_count` (never on presence channels; the server sends it when
    /// the app enables subscription counts). The same count is on
    /// ``PusherChannel/subscriptionCounts`` as an `Int`, and the last one stays readable as
    /// ``PusherChannel/subscriptionCount``.
    public static let subscriptionCount = "pusher:subscription_count"

    /// Whether this is ``subscriptionCount``: a new subscriber count for the channel.
    public var isSubscriptionCount: Bool { name == Self.subscriptionCount }

    /// `clearance:recovery`: the name of the event that says what a resume found after the
    /// connection came back (``ChannelRecovery``), on a channel whose hub keeps its history: data
    /// `{"recovered":true}`, or `{"recovered":false,"reason":"historyLost"}` (then fetch the
    /// channel's state from the app's server). It comes right after the
    /// `pusher:subscription_succeeded` of the new connection, before any event.
    public static let recovery = "clearance:recovery"

    /// Whether this is ``recovery``.
    public var isRecovery: Bool { name == Self.recovery }

    /// Creates an event.
    public init(name: String, channel: String, data: String?, userID: String? = nil) {
        self.name = name
        self.channel = channel
        self.data = data
        self.userID = userID
    }

    /// Decodes ``data`` as JSON into `T`. A payload that is plain text (not JSON) decodes as
    /// `String`.
    /// - Throws: `DecodingError` when it does not decode.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        let text = data ?? "null"
        do {
            return try decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            if let string = text as? T { return string }
            throw error
        }
    }
}
