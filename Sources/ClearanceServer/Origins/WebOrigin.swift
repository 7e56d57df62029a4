/// A web origin, `scheme://host[:port]`, as browsers send it in the `Origin` header, in one
/// normal form: scheme and host in lower case, and the scheme's default port left out, so that
/// `https://App.Example.com:443` and `https://app.example.com` are the same origin.
///
/// What is not an origin (a path, even `/` alone; a query, a fragment, user info, no host, a
/// port outside 1…65535, browsers' opaque `null`) is refused with the reason
/// (``problem(in:)``), never silently read as something else.
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, in lower case (`https`).
    public let scheme: String
    /// The host, in lower case; an IPv6 address keeps its brackets (`[::1]`).
    public let host: String
    /// The port, or nil for the scheme's default one (80 for http and ws, 443 for https and wss).
    public let port: Int?

    /// `text` as an origin, or nil when it is not one (``problem(in:)`` says why).
    public init?(_ text: String) {
        guard case let .origin(origin) = Self.parse(text) else { return nil }
        self = origin
    }

    /// Why `text` is not an origin, or nil when it is one.
    public static func problem(in text: String) -> WebOriginProblem? {
        guard case let .problem(problem) = parse(text) else { return nil }
        return problem
    }

    private enum Parsed {
        case origin(WebOrigin)
        case problem(WebOriginProblem)
    }

    private init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    private static func parse(_ text: String) -> Parsed {
        if text == "*" { return .problem(.wildcard) }
        guard let separator = text.range(of: "://") else { return .problem(.notAnOrigin) }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
              scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0) })
        else { return .problem(.notAnOrigin) }
        let authority = text[separator.upperBound...]
        if authority.contains(where: { "/?#".contains($0) }) { return .problem(.hasPath) }
        if authority.contains("@") { return .problem(.hasUserInfo) }

        var host = Substring(authority)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return .problem(.invalidHost) }
            let rest = host[host.index(after: close)...]
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.unicodeScalars.allSatisfy({ $0.isASCIIHexDigit || $0 == ":" || $0 == "." }) else {
                return .problem(.invalidHost)
            }
            host = host[...close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return .problem(.invalidHost) }
                portText = rest.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
            guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "-._".unicodeScalars.contains($0) }) else {
                return .problem(.invalidHost)
            }
        } else {
            guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "-._".unicodeScalars.contains($0) }) else {
                return .problem(.invalidHost)
            }
        }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.unicodeScalars.allSatisfy(\.isASCIIDigit),
                  let number = Int(portText), (1...65_535).contains(number)
            else { return .problem(.invalidPort) }
            port = number == defaultPort(of: scheme) ? nil : number
        }
        return .origin(WebOrigin(scheme: scheme, host: host.lowercased(), port: port))
    }

    /// `scheme://host[:port]`, the normal form.
    public var description: String {
        "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }

    private static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    fileprivate var isASCIIHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
}
