import Clearance

/// Why a PostgreSQL backplane cannot be used. Messages never contain the password.
public enum PostgresBackplaneError: ClearanceError, Equatable {
    /// The URL is not `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&namespace=…]`.
    case invalidURL(reason: String)
    /// A setting is outside its allowed range (the message names the range).
    case invalidSetting(String)
    /// The cluster secret is shorter than `minimum` characters.
    case clusterKeyTooShort(minimum: Int)
    /// The database's backplane schema is newer than this version of Clearance knows: a newer
    /// hub migrated it, and this one must not use it.
    case newerSchema(found: Int, known: Int)

    public static let codeDomain = "backplane.postgres"

    /// Each case's code and message (which never contains the password).
    public var summary: ErrorSummary<Code> {
        switch self {
        case let .invalidURL(reason): .init(.invalidURL, "The backplane URL is not usable: \(reason)")
        case let .invalidSetting(name): .init(.invalidSetting, "The backplane setting \(name) is out of range\(Self.allowed[name].map { " (\($0))" } ?? "").")
        case let .clusterKeyTooShort(minimum): .init(
            .clusterKeyTooShort, "The cluster key must be at least \(minimum) characters long: make one with `openssl rand -base64 48`.")
        case let .newerSchema(found, known): .init(
            .newerSchema, "The database holds the backplane schema at version \(found), newer than this Clearance knows (\(known)): "
                + "a newer version migrated it. Run that version (or newer) on every node, or restore the backup taken before the upgrade.")
        }
    }

    /// What each setting allows.
    private static let allowed = [
        "namespace": "1 to 40 lower-case letters, digits or _, starting with a letter",
        "heartbeatInterval": "more than 0, at most 5 minutes",
        "nodeTimeout": "at least twice heartbeatInterval, at most 30 minutes",
        "reconnectDelay": "more than 0, at most 5 minutes",
        "queueLimit": "queue_limit: 1 to 10,000,000 messages",
    ]

    /// Stable machine-readable codes; ``qualifiedCode`` is `backplane.postgres.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case invalidURL, invalidSetting, clusterKeyTooShort, newerSchema
    }
}
