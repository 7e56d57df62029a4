import Logging

/// Bloomreach Engagement's (Exponea SDK's) authorization, as a ready-made policy.
///
/// - Every public endpoint takes the project API key as `Authorization: Token <key>`.
/// - With *advanced auth* on, the private App Inbox endpoints take the customer token, a JWT
///   from an app-supplied provider, as `Authorization: Bearer <jwt>`, fetched per request.
///
/// Unlike the SDK, a missing provider is an error when the authorizer is built, not a log line
/// at request time, and the token is never shown by `description`.
public enum Bloomreach {
    /// The name of the API-key source in the policy.
    public static let apiKeySource = "bloomreach.api-key"
    /// The name of the customer-token source in the policy.
    public static let customerTokenSource = "bloomreach.customer-token"

    /// Endpoints that take the API key.
    public static let publicEndpoints = [
        "POST /track/v2/projects/{projectToken}/customers",
        "POST /track/v2/projects/{projectToken}/customers/events",
        "POST /track/v2/projects/{projectToken}/campaigns/clicks",
        "POST /data/v2/projects/{projectToken}/customers/attributes",
        "POST /data/v2/projects/{projectToken}/consent/categories",
        "POST /webxp/s/{projectToken}/inappmessages",
        "POST /campaigns/send-self-check-notification",
    ]

    /// Endpoints that take the customer token when advanced auth is on (the API key otherwise).
    public static let privateEndpoints = [
        "POST /webxp/projects/{projectToken}/appinbox/fetch",
        "POST /webxp/projects/{projectToken}/appinbox/markasread",
    ]

    /// The policy: private endpoints first (customer token when `advancedAuth`), then public ones.
    /// Requests to other endpoints need no credential unless `unmatched` says otherwise.
    public static func policy(advancedAuth: Bool, host: String? = nil, unmatched: CredentialRequirement = .none) throws(AuthorizationError) -> AuthorizationPolicy {
        var policy = AuthorizationPolicy(unmatched: unmatched)
        for endpoint in privateEndpoints {
            try policy.require(.source(advancedAuth ? customerTokenSource : apiKeySource), for: endpoint, host: host)
        }
        for endpoint in publicEndpoints {
            try policy.require(.source(apiKeySource), for: endpoint, host: host)
        }
        return policy
    }

    /// A ready ``RequestAuthorizer`` for Bloomreach.
    ///
    /// - Parameters:
    ///   - apiKey: The project API key (sent as `Token <key>`).
    ///   - advancedAuth: Whether the private endpoints use the customer token.
    ///   - customerToken: The provider of customer JWTs; required when `advancedAuth` is on.
    ///     Wrap it in ``CachingCredentialSource`` if it should not be called for every request.
    /// - Throws: ``AuthorizationError/misconfigured(reason:)`` when advanced auth is on without a provider, or the key is empty.
    public static func authorizer(
        apiKey: String,
        advancedAuth: Bool,
        customerToken: (any CredentialSource)?,
        host: String? = nil,
        transportSecurity: TransportSecurity = .strict,
        logger: Logger = Logger(label: "clearance.bloomreach")
    ) throws(AuthorizationError) -> RequestAuthorizer {
        guard !apiKey.allSatisfy(\.isWhitespace) else {
            logger.error("misconfigured Bloomreach authorization", metadata: ["problem": "the API key is empty"])
            throw .misconfigured(reason: "the Bloomreach API key is empty")
        }
        var sources: [String: any CredentialSource] = [apiKeySource: StaticCredentialSource(.apiKey(apiKey), name: apiKeySource)]
        if advancedAuth {
            guard let customerToken else {
                let reason = "advanced auth is on but no customer token provider was given"
                logger.error("misconfigured Bloomreach authorization", metadata: ["problem": "\(reason)"])
                throw .misconfigured(reason: reason)
            }
            sources[customerTokenSource] = customerToken
        }
        return try RequestAuthorizer(
            policy: policy(advancedAuth: advancedAuth, host: host), sources: sources,
            transportSecurity: transportSecurity, logger: logger)
    }
}
