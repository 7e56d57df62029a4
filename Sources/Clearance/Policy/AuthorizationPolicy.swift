import HTTPTypes

/// Says which credential each endpoint needs: an ordered list of ``EndpointRule``s (the first
/// match wins, as in a router) and a requirement for requests no rule covers.
public struct AuthorizationPolicy: Sendable, CustomStringConvertible {
    /// The rules, in order.
    public var rules: [EndpointRule]
    /// What a request that no rule matches needs. Defaults to ``CredentialRequirement/none``.
    public var unmatched: CredentialRequirement

    public init(rules: [EndpointRule] = [], unmatched: CredentialRequirement = .none) {
        self.rules = rules
        self.unmatched = unmatched
    }

    /// A policy that puts one source's credential on every request.
    public static func always(_ source: String) -> AuthorizationPolicy {
        AuthorizationPolicy(unmatched: .source(source))
    }

    /// Adds a rule, e.g. `policy.require(.source("api-key"), for: "POST /track/{project}")`.
    public mutating func require(_ requirement: CredentialRequirement, for endpoint: String, host: String? = nil) throws(AuthorizationError) {
        rules.append(try EndpointRule(endpoint, host: host, requirement: requirement))
    }

    /// The requirement for `request` and the rule that gave it (nil when none matched).
    public func requirement(for request: HTTPRequest) -> (CredentialRequirement, EndpointRule?) {
        for rule in rules where rule.matches(request) { return (rule.requirement, rule) }
        return (unmatched, nil)
    }

    /// Every source name the policy refers to.
    public var referencedSources: Set<String> {
        Set(rules.flatMap(\.requirement.sourceNames) + unmatched.sourceNames)
    }

    public var description: String {
        (rules.map(\.description) + ["otherwise → \(unmatched)"]).joined(separator: "\n")
    }
}
