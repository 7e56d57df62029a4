/// How the client authenticates to the token, device authorization and revocation endpoints
/// (RFC 6749 §2.3.1, the names from RFC 7591 §2).
public enum ClientAuthenticationMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// HTTP Basic with the client id and secret, each form-urlencoded first (RFC 6749 §2.3.1). The default.
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the request body.
    case clientSecretPost = "client_secret_post"
    /// A public client: `client_id` in the body, no secret (authorization code with PKCE, device flow).
    case none
}
