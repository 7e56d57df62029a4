import Clearance

/// Any extension grant (RFC 6749 §4.5): a grant type plus form fields, e.g. PodioKit's
/// `grant_type=app` with `app_id` and `app_token` (``podioApp(appID:appToken:)``).
///
/// Field values whose names sound secret (`app_token`, `assertion`, `password`, …) are masked
/// in its `description` and in any error; ``secretFieldNames`` adds more names.
public struct ExtensionGrant: OAuth2Grant, SecretRedacting {
    /// The `grant_type` value (an absolute URI or a name the server defines).
    public var grantType: String
    /// The grant's form fields, in order.
    public var fields: [(name: String, value: String)]
    /// More field names whose values are secret, beyond `Redactor.secretNames`.
    public var secretFieldNames: Set<String>
    /// The scopes to ask for; `nil` uses the session's.
    public var scopes: [String]?
    /// The name for logs; defaults to the grant type.
    public var grantName: String

    public init(grantType: String, fields: [(name: String, value: String)], secretFieldNames: Set<String> = [], scopes: [String]? = nil, name: String? = nil) {
        self.grantType = grantType
        self.fields = fields
        self.secretFieldNames = secretFieldNames
        self.scopes = scopes
        self.grantName = name ?? grantType
    }

    /// PodioKit's "sign in as an app": `grant_type=app`, `app_id`, `app_token`.
    public static func podioApp(appID: String, appToken: String) -> ExtensionGrant {
        ExtensionGrant(grantType: "app", fields: [("app_id", appID), ("app_token", appToken)], name: "app")
    }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        let all = Self.appendingScope(scopes, defaults: server.scopes, to: [("grant_type", grantType)] + fields)
        return try await server.requestToken(all, secretFieldNames: secretFieldNames)
    }

    public var description: String {
        let shown = fields.map { field in
            let secret = Redactor.secretNames.contains(field.name.lowercased()) || secretFieldNames.contains(field.name)
            return "\(field.name): \(secret ? Redactor.mask : field.value)"
        }
        return "ExtensionGrant(\(grantType), \(shown.joined(separator: ", ")))"
    }
}
