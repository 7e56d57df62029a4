import Clearance
import Logging

/// Bloomreach Engagement's (Exponea SDK's) authorization, as a ready-made policy.
///
/// - Every public endpoint takes the project API key as `Authorization: Token <key>`.
/// - With *advanced auth* on, the private App Inbox endpoints take the customer token, a JWT
///   from the app's provider, as `Authorization: Bearer <jwt>`, through a
///   ``CustomerTokenSource``: its expiry read from the token, renewed before it, dropped the
///   moment the customer changes, refreshed once on a 401.
///
/// Unlike the SDK, advanced auth without a customer-token source cannot be configured at all
/// (``Authorization`` has no such case), an empty key is an error when the authorizer is built
/// rather than a log line at request time, and the token is never shown by `description`.
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

    /// How the app authorizes against Bloomreach: one value, so a configuration that cannot
    /// work (advanced auth without a customer-token source) cannot be written.
    public enum Authorization: Sendable {
        /// The project API key (`Token <key>`) on every endpoint.
        case apiKey(String)
        /// Advanced auth: the API key on the public endpoints, the customer token (a JWT,
        /// `Bearer <jwt>`) from `customerTokens` on the private ones. (Another credential source
        /// can be given by hand: ``Bloomreach/policy(advancedAuth:host:unmatched:)`` with a
        /// `RequestAuthorizer`.)
        case advanced(apiKey: String, customerTokens: CustomerTokenSource)

        /// The project API key.
        public var apiKey: String {
            switch self {
            case .apiKey(let key), .advanced(let key, _): key
            }
        }

        /// Whether the private endpoints take the customer token.
        public var isAdvanced: Bool {
            if case .advanced = self { return true }
            return false
        }
    }

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

    /// A ready `RequestAuthorizer` for Bloomreach.
    ///
    /// - Throws: `AuthorizationError.misconfigured` when the API key is empty (and logs
    ///   an error saying so): at configuration time, never as a silent request without a credential.
    public static func authorizer(
        _ authorization: Authorization,
        host: String? = nil,
        transportSecurity: TransportSecurity = .strict,
        logger: Logger = Logger(label: "clearance.bloomreach")
    ) throws(AuthorizationError) -> RequestAuthorizer {
        guard !authorization.apiKey.allSatisfy(\.isWhitespace) else {
            logger.error("misconfigured Bloomreach authorization", metadata: ["problem": "the API key is empty"])
            throw .misconfigured(reason: "the Bloomreach API key is empty")
        }
        var sources: [String: any CredentialSource] = [apiKeySource: StaticCredentialSource(.apiKey(authorization.apiKey), name: apiKeySource)]
        if case .advanced(_, let customerTokens) = authorization {
            sources[customerTokenSource] = customerTokens
        }
        return try RequestAuthorizer(
            policy: policy(advancedAuth: authorization.isAdvanced, host: host), sources: sources,
            transportSecurity: transportSecurity, logger: logger)
    }
}
