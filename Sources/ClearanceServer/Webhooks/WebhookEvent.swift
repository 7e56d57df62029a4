import ClearanceWire
import Foundation

/// One event of a Pusher webhook, as it travels in the body's `events` array: what the hub sends
/// and what ``WebhookReceiver`` hands an app.
///
/// The wire form is Pusher's: `{"name": "channel_occupied", "channel": "…"}`, with `user_id` for
/// the member events, and `event`, `data` (the client's data, as a string), `socket_id` and, on
/// presence channels, `user_id` for `client_event`, and `subscription_count` for
/// `subscription_count`.
public enum WebhookEvent: Sendable, Hashable, Codable {
    /// The channel got its first subscriber (`channel_occupied`).
    case channelOccupied(channel: String)
    /// The channel's last subscriber left (`channel_vacated`).
    case channelVacated(channel: String)
    /// A user joined the presence channel (`member_added`): their first connection in it.
    case memberAdded(channel: String, userID: String)
    /// A user left the presence channel for good (`member_removed`): their last connection in it went.
    case memberRemoved(channel: String, userID: String)
    /// A client sent a `client-` event that the hub relayed (`client_event`). `data` is the
    /// client's data as a string; `userID` is set on presence channels only.
    case clientEvent(channel: String, event: String, data: String, socketID: String, userID: String?)
    /// A subscriber of a cache channel found no cached event (`cache_miss`).
    case cacheMiss(channel: String)
    /// The channel's number of subscribers across the cluster changed (`subscription_count`),
    /// coalesced as the subscribers' `pusher_internal:subscription_count` is: at most one per
    /// channel per second, and one after the last change.
    case subscriptionCount(channel: String, count: Int)

    /// The event's `name` on the wire.
    public var kind: WebhookEventKind {
        switch self {
        case .channelOccupied: .channelOccupied
        case .channelVacated: .channelVacated
        case .memberAdded: .memberAdded
        case .memberRemoved: .memberRemoved
        case .clientEvent: .clientEvent
        case .cacheMiss: .cacheMiss
        case .subscriptionCount: .subscriptionCount
        }
    }

    /// The channel the event is about.
    public var channel: String {
        switch self {
        case let .channelOccupied(channel), let .channelVacated(channel), let .cacheMiss(channel): channel
        case let .memberAdded(channel, _), let .memberRemoved(channel, _): channel
        case let .clientEvent(channel, _, _, _, _): channel
        case let .subscriptionCount(channel, _): channel
        }
    }

    private enum CodingKeys: String, CodingKey {
        case name, channel, event, data
        case userID = "user_id"
        case socketID = "socket_id"
        case subscriptionCount = "subscription_count"
    }

    /// Decodes one event of a webhook body.
    /// - Throws: a `DecodingError` for an unknown `name` or a missing member.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        guard let kind = WebhookEventKind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: "unknown webhook event \(name)")
        }
        let channel = try container.decode(String.self, forKey: .channel)
        switch kind {
        case .channelOccupied: self = .channelOccupied(channel: channel)
        case .channelVacated: self = .channelVacated(channel: channel)
        case .cacheMiss: self = .cacheMiss(channel: channel)
        case .subscriptionCount: self = .subscriptionCount(channel: channel, count: try container.decode(Int.self, forKey: .subscriptionCount))
        case .memberAdded: self = .memberAdded(channel: channel, userID: try container.decode(String.self, forKey: .userID))
        case .memberRemoved: self = .memberRemoved(channel: channel, userID: try container.decode(String.self, forKey: .userID))
        case .clientEvent:
            self = .clientEvent(
                channel: channel, event: try container.decode(String.self, forKey: .event), data: try container.decode(String.self, forKey: .data),
                socketID: try container.decode(String.self, forKey: .socketID), userID: try container.decodeIfPresent(String.self, forKey: .userID))
        }
    }

    /// Encodes the event's wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.rawValue, forKey: .name)
        try container.encode(channel, forKey: .channel)
        switch self {
        case .channelOccupied, .channelVacated, .cacheMiss:
            break
        case let .memberAdded(_, userID), let .memberRemoved(_, userID):
            try container.encode(userID, forKey: .userID)
        case let .subscriptionCount(_, count):
            try container.encode(count, forKey: .subscriptionCount)
        case let .clientEvent(_, event, data, socketID, userID):
            try container.encode(event, forKey: .event)
            try container.encode(data, forKey: .data)
            try container.encode(socketID, forKey: .socketID)
            try container.encodeIfPresent(userID, forKey: .userID)
        }
    }
}

extension WebhookEvent {
    /// A client event's `data` as webhooks carry it: a string the client sent as is, anything
    /// else as its JSON text.
    static func clientData(raw: String) -> String {
        guard raw.utf8.first == UInt8(ascii: "\""), case let .string(text)? = try? JSONScanner.parse(raw) else { return raw }
        return text
    }
}

extension WebhookEvent {
    /// The bytes of the event's JSON text in a webhook body (as ``WebhookPayload/encoded()``
    /// writes it).
    public var encodedBytes: Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers only: encoding cannot fail.
        return (try? encoder.encode(self).count) ?? 0
    }
}
