import HTTPTypes

/// One line of an ``AuthorizationPolicy``: which requests it covers and what they need.
public struct EndpointRule: Sendable, CustomStringConvertible {
    /// The method, or nil for any.
    public var method: HTTPRequest.Method?
    /// The host (`api.example.com`) or host and port (`api.example.com:8443`), or nil for any. Case-insensitive.
    public var host: String?
    /// The path template.
    public var path: PathTemplate
    /// What matching requests need.
    public var requirement: CredentialRequirement

    public init(method: HTTPRequest.Method?, host: String? = nil, path: PathTemplate, requirement: CredentialRequirement) {
        self.method = method
        self.host = host?.lowercased()
        self.path = path
        self.requirement = requirement
    }

    /// Parses `"POST /webxp/projects/{projectToken}/appinbox/fetch"` (or just a path for any method).
    /// - Throws: ``AuthorizationError/misconfigured(reason:)`` for an unknown method or a bad template.
    public init(_ endpoint: String, host: String? = nil, requirement: CredentialRequirement) throws(AuthorizationError) {
        let parts = endpoint.split(separator: " ", omittingEmptySubsequences: true)
        switch parts.count {
        case 1:
            self.init(method: nil, host: host, path: try PathTemplate(String(parts[0])), requirement: requirement)
        case 2:
            guard let method = HTTPRequest.Method(String(parts[0]).uppercased()) else {
                throw .misconfigured(reason: "'\(parts[0])' is not an HTTP method in endpoint '\(endpoint)'")
            }
            self.init(method: method, host: host, path: try PathTemplate(String(parts[1])), requirement: requirement)
        default:
            throw .misconfigured(reason: "endpoint '\(endpoint)' must be 'METHOD /path' or '/path'")
        }
    }

    /// True when this rule covers `request`.
    public func matches(_ request: HTTPRequest) -> Bool {
        if let method, request.method != method { return false }
        if let host, !Self.hostMatches(host, authority: request.authority) { return false }
        return path.matches(request.path ?? "/")
    }

    static func hostMatches(_ host: String, authority: String?) -> Bool {
        guard let authority = authority?.lowercased() else { return false }
        let ruleHasPort = host.hasPrefix("[") ? host.contains("]:") : host.contains(":")
        return ruleHasPort ? authority == host : Origin.hostPart(of: authority) == host
    }

    public var description: String {
        "\(method?.rawValue ?? "*") \(host ?? "*")\(path) → \(requirement)"
    }
}
