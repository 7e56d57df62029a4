/// What the hub holds now, read through ``HubCounters/gauge(_:)``: values that go up and down
/// with its load (the budgets its limits are checked against).
///
/// The raw values are stable names (snake case), for logs and metrics (``HubMetrics`` exports
/// each as `clearance_<raw value>`).
public enum HubGauge: String, Sendable, Hashable, CaseIterable {
    /// Sockets open (WebSocket and HTTP), against the descriptor budget.
    case openSockets = "open_sockets"
    /// Subscriptions held, against ``HubChannelLimits/maxSubscriptions``.
    case subscriptions
    /// Bytes every WebSocket together has left unsent, against ``HubConnectionLimits/maxTotalOutboundBytes``.
    case unsentBytes = "unsent_bytes"
    /// Events the channel history keeps, every app together (``ChannelHistoryConfiguration``).
    case historyEvents = "history_events"
}
