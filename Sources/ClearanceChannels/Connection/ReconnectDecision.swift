/// What ``ReconnectPolicy`` says to do after a connection ended.
public enum ReconnectDecision: Sendable, Equatable {
    /// Do not reconnect: the server refused for good (close codes 4000–4099).
    case stop(ChannelClientError)
    /// Reconnect after this delay (zero: at once).
    case retry(after: Duration)

    /// Equal when both retry after the same delay, or both stop with the same failure (same
    /// code and close code).
    public static func == (lhs: ReconnectDecision, rhs: ReconnectDecision) -> Bool {
        switch (lhs, rhs) {
        case (.retry(let a), .retry(let b)): a == b
        case (.stop(let a), .stop(let b)): a.isSameFailure(as: b)
        default: false
        }
    }
}
