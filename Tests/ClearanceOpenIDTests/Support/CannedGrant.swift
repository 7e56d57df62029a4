import ClearanceOAuth2

/// A grant that answers with a response made in the test (an ID token from the hostile provider,
/// say), as a password, device or client-credentials grant would: no authentication request,
/// so no ``AuthenticationRequestContext``.
struct CannedGrant: OAuth2Grant {
    let grantName: String
    let response: TokenResponse

    func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        response
    }
}
