/// The kinds of webhook events, named as Pusher names them: what a target lists in `events`.
public enum WebhookEventKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// `channel_occupied`
    case channelOccupied = "channel_occupied"
    /// `channel_vacated`
    case channelVacated = "channel_vacated"
    /// `member_added`
    case memberAdded = "member_added"
    /// `member_removed`
    case memberRemoved = "member_removed"
    /// `client_event`
    case clientEvent = "client_event"
    /// `cache_miss`
    case cacheMiss = "cache_miss"
    /// `subscription_count` (apps with ``HubAppConfiguration/subscriptionCount``)
    case subscriptionCount = "subscription_count"
}
