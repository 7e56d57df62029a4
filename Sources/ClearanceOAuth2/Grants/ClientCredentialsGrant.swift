import Clearance
/// The client credentials grant (RFC 6749 §4.4): the client acts on its own behalf.
public struct ClientCredentialsGrant: OAuth2Grant, SecretRedacting {
    /// The scopes to ask for; `nil` uses the session's.
    public var scopes: [String]?

    public init(scopes: [String]? = nil) {
        self.scopes = scopes
    }

    public var grantName: String { "client_credentials" }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        try await server.requestToken(Self.appendingScope(scopes, defaults: server.scopes, to: [("grant_type", "client_credentials")]))
    }

    public var description: String { "ClientCredentialsGrant(scopes: \(scopes?.joined(separator: " ") ?? "default"))" }
}
