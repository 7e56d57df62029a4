import Foundation

/// A webhook's body: `{"time_ms": …, "events": […]}`, `time_ms` the Unix time in milliseconds
/// when the webhook was made.
public struct WebhookPayload: Sendable, Hashable, Codable {
    /// When the webhook was made, in milliseconds since 1970.
    public var timeMilliseconds: Int64
    /// The events, in the order they happened.
    public var events: [WebhookEvent]

    /// Creates a body.
    public init(timeMilliseconds: Int64, events: [WebhookEvent]) {
        self.timeMilliseconds = timeMilliseconds
        self.events = events
    }

    /// When the webhook was made.
    public var time: Date { Date(timeIntervalSince1970: Double(timeMilliseconds) / 1_000) }

    private enum CodingKeys: String, CodingKey {
        case timeMilliseconds = "time_ms"
        case events
    }

    /// The JSON text sent (keys in a fixed order, slashes not escaped).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers only: encoding cannot fail.
        return try! encoder.encode(self)
    }
}
