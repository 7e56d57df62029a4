/// What the subscription service says of a user's subscription (Pugpig's `<subscription state>`),
/// plus ``signedOut`` for "no session".
public enum SubscriptionState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The service could not tell (or answered a state this build does not know).
    case unknown
    /// The subscription is active.
    case active
    /// The subscription has lapsed (issues bought while it ran may stay readable).
    case inactive
    /// The token expired: it must be renewed (the provider does so by itself, once).
    case stale
    /// The account is suspended.
    case suspended
    /// No session: never signed in, signed out, or the session ended when renewal was refused.
    case signedOut

    /// The state a Pugpig `state` attribute names; anything unrecognised is ``unknown`` (as
    /// Pugpig's specification requires). `signedOut` is never read from a server.
    public init(pugpig value: String) {
        switch value {
        case "active": self = .active
        case "inactive": self = .inactive
        case "stale": self = .stale
        case "suspended": self = .suspended
        default: self = .unknown
        }
    }

    public var description: String { rawValue }
}
