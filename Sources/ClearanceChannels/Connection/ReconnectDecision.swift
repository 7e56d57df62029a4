/// What ``ReconnectPolicy`` says to do after a connection ended.
public enum ReconnectDecision: Sendable, Hashable {
    /// Do not reconnect: the server refused for good (close codes 4000–4099).
    case stop(ChannelClientError)
    /// Reconnect after this delay (zero: at once).
    case retry(after: Duration)
}
