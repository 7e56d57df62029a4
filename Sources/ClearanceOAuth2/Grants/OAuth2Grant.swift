/// A way to obtain a token from the authorization server: one small type per grant.
///
/// A grant gets the ``AuthorizationServer`` (endpoints, client identity, transport) and returns
/// the server's ``TokenResponse``. ``OAuth2Session`` uses grants for explicit sign-in
/// (``OAuth2Session/signIn(with:)``) and for automatic sign-in on the first request.
public protocol OAuth2Grant: Sendable {
    /// The grant's name for logs and events (`password`, `client_credentials`, `app`): never a secret.
    var grantName: String { get }
    /// Asks `server` for a token.
    func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse
}

extension OAuth2Grant {
    /// Appends `scope` (the grant's own scopes, else the server's defaults) when there are any.
    static func appendingScope(_ scopes: [String]?, defaults: [String], to fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let scope = (scopes ?? defaults).joined(separator: " ")
        return scope.isEmpty ? fields : fields + [("scope", scope)]
    }
}
