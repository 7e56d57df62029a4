import ClearanceWire

/// `pusher_internal:subscription_count` on channel `C`: data `{"subscription_count":N}`, sent as a
/// string holding that object (as Pusher does) or as the object itself.
package struct SubscriptionCountFrame: Sendable, Hashable {
    /// The channel the count is for.
    package let channel: String
    /// How many connections are subscribed to it (across the server's cluster).
    package let count: Int

    /// Reads the frame; nil when it names no channel, or the count is missing or not a whole
    /// number of zero or more.
    package init?(_ frame: IncomingFrame) {
        guard let channel = frame.channel,
              let count = frame.dataObject?["subscription_count"]?.intValue, count >= 0
        else { return nil }
        self.channel = channel
        self.count = count
    }
}
