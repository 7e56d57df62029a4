import Clearance

/// Why a list of development users cannot be used. Messages never contain a token.
public enum DevelopmentUserError: ClearanceError, Equatable {
    /// A user has an empty or duplicate token, or an empty, too long or duplicate id.
    case invalidUser(id: String)
    /// The `pugpig` settings cannot be used.
    case invalidPugpigSettings(reason: String)

    public static let codeDomain = "development"
    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .invalidUser(let id): .init(.invalidUser, "The development user '\(id)' needs a unique non-empty token and a unique id of 1–128 characters.")
        case .invalidPugpigSettings(let reason): .init(.invalidPugpigSettings, "The pugpig settings cannot be used: \(reason).")
        }
    }

    public enum Code: String, Sendable { case invalidUser, invalidPugpigSettings }
}
