import HTTPTypes

/// Where credentials may be sent. By default only over `https`/`wss`, or plain `http`/`ws` to a
/// loopback host; anything else is refused before a byte leaves the process.
public struct TransportSecurity: Sendable, Hashable {
    /// Allow credentials over plain HTTP to any host. For development only.
    public var allowsInsecureHTTP: Bool
    /// Hosts (lower-cased) that may receive credentials over plain HTTP, in addition to loopback.
    public var insecureHostsAllowed: Set<String>

    public init(allowsInsecureHTTP: Bool = false, insecureHostsAllowed: Set<String> = []) {
        self.allowsInsecureHTTP = allowsInsecureHTTP
        self.insecureHostsAllowed = Set(insecureHostsAllowed.map { $0.lowercased() })
    }

    /// The default: HTTPS, or plain HTTP to loopback only.
    public static let strict = TransportSecurity()

    /// Throws unless a credential may go to `request`'s origin.
    public func check(_ request: HTTPRequest) throws(AuthorizationError) {
        guard let origin = Origin(request) else {
            throw .misconfigured(reason: "a request with a credential needs an absolute URL (scheme and host)")
        }
        switch origin.scheme {
        case "https", "wss":
            return
        case "http", "ws":
            if allowsInsecureHTTP || origin.isLoopback || insecureHostsAllowed.contains(origin.host) { return }
            throw .misconfigured(
                reason: "refusing to send a credential over plain \(origin.scheme) to \(origin.host); use https, or allow it explicitly with TransportSecurity(insecureHostsAllowed:)")
        default:
            throw .misconfigured(reason: "refusing to send a credential over unknown scheme '\(origin.scheme)'")
        }
    }
}
