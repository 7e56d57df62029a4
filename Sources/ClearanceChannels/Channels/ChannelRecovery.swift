/// What a channel's last resume found: when a connection comes back, ``ChannelClient`` asks a
/// hub that keeps the channel's history (`clearance serve` with the app's `"history"`) for the
/// events missed since the last one it delivered. ``PusherChannel/recovery`` keeps the answer, and
/// each answer also arrives on ``PusherChannel/events`` as a ``ChannelEvent/recovery`` event.
public enum ChannelRecovery: Sendable, Hashable, CustomStringConvertible {
    /// Every missed event was delivered, once and in order, before any newer one.
    case recovered
    /// Events may have been missed: fetch the channel's state from the app's own server.
    case notRecovered(Reason)

    /// Why a resume did not recover, as the client can tell from the hub's answer.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The hub names another stream: the channel's history was lost (it expired whole, the
        /// hub restarted with its history in memory, or its database was reset).
        case historyLost = "the channel's history was lost"
        /// The hub no longer keeps every missed event (more than its `size`, older than its
        /// `ttl`, or more than it sends at once).
        case eventsNotKept = "the missed events are no longer kept"
        /// The hub's channel is behind the client's last event (another hub, or one that lost
        /// events it had sent).
        case channelBehind = "the channel is behind the client's last event"
    }

    /// The recovery a ``ChannelEvent/recovery`` event reports; nil for any other event.
    public init?(_ event: ChannelEvent) {
        guard event.isRecovery, let data = event.data else { return nil }
        if data == Self.recovered.eventData {
            self = .recovered
        } else if let reason = Reason.allCases.first(where: { Self.notRecovered($0).eventData == data }) {
            self = .notRecovered(reason)
        } else {
            return nil
        }
    }

    /// Whether every missed event was delivered.
    public var isRecovered: Bool { self == .recovered }

    /// Why it did not recover, in words (empty when it did).
    public var reasonText: String {
        if case let .notRecovered(reason) = self { return reason.rawValue }
        return ""
    }

    /// `recovered`, or `not recovered (the channel's history was lost)`.
    public var description: String {
        switch self {
        case .recovered: "recovered"
        case let .notRecovered(reason): "not recovered (\(reason.rawValue))"
        }
    }

    /// The data of its ``ChannelEvent/recovery`` event: `{"recovered":true}`, or
    /// `{"recovered":false,"reason":"historyLost"}` (the reason's case name).
    var eventData: String {
        switch self {
        case .recovered: #"{"recovered":true}"#
        case let .notRecovered(reason): #"{"recovered":false,"reason":"\#(reason.name)"}"#
        }
    }
}

extension ChannelRecovery.Reason {
    /// The case's name, as the event's data gives it.
    var name: String {
        switch self {
        case .historyLost: "historyLost"
        case .eventsNotKept: "eventsNotKept"
        case .channelBehind: "channelBehind"
        }
    }
}
