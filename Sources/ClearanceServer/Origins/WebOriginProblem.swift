/// Why a text is not a ``WebOrigin``.
public enum WebOriginProblem: Sendable, Hashable, CustomStringConvertible {
    /// Not `scheme://…` (browsers' opaque `null` included).
    case notAnOrigin
    /// `*`: not an origin.
    case wildcard
    /// A path (even `/` alone), query or fragment after the host.
    case hasPath
    /// `user@` before the host.
    case hasUserInfo
    /// No host, or characters a host cannot hold.
    case invalidHost
    /// A port that is not a number in 1…65535.
    case invalidPort

    /// The reason, as a phrase for an error message.
    public var description: String {
        switch self {
        case .notAnOrigin: "not an origin scheme://host[:port]"
        case .wildcard: "* is not an origin: leave allowedOrigins out to accept every origin"
        case .hasPath: "an origin has no path, query or fragment (not even a trailing /)"
        case .hasUserInfo: "an origin has no user name or password"
        case .invalidHost: "the host is missing or invalid"
        case .invalidPort: "the port is not a number in 1…65535"
        }
    }
}
