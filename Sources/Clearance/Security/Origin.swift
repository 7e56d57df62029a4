import HTTPTypes

/// The origin of a request (RFC 6454): scheme, host and port. Credentials follow a redirect only
/// when the origin stays the same.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// Lower-cased scheme (`https`).
    public var scheme: String
    /// Lower-cased host, IPv6 literals without brackets.
    public var host: String
    /// The port, explicit or the scheme's default.
    public var port: Int?

    public init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port ?? Self.defaultPort(for: self.scheme)
    }

    /// The origin of `request`, or nil when it has no scheme or authority.
    public init?(_ request: HTTPRequest) {
        guard let scheme = request.scheme, let authority = request.authority else { return nil }
        let (host, port) = Self.split(authority: authority)
        self.init(scheme: scheme, host: host, port: port)
    }

    /// True for `localhost`, `*.localhost`, 127.0.0.0/8 and `::1`.
    public var isLoopback: Bool { Self.isLoopback(host: host) }

    public var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(port.map { ":\($0)" } ?? "")" }

    static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    /// True for `localhost`, `*.localhost`, 127.0.0.0/8 and `::1`.
    public static func isLoopback(host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { UInt8($0) != nil }
    }

    /// The host of an authority (`user@host:port`), without port, brackets or user info; lower-cased.
    public static func hostPart(of authority: String) -> String { split(authority: authority).host }

    static func split(authority: String) -> (host: String, port: Int?) {
        var rest = Substring(authority.lowercased())
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            let port = after.hasPrefix(":") ? Int(after.dropFirst()) : nil
            return (String(host), port)
        }
        if let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) {
            return (String(rest[..<colon]), port)
        }
        return (String(rest), nil)
    }
}
