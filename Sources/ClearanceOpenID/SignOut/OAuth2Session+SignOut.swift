import Clearance
import ClearanceOAuth2
import Foundation

extension OAuth2Session {
    /// Signs out of an OpenID Connect session (RP-Initiated Logout 1.0): revokes the tokens
    /// where the server allows it, clears the store, and returns the URL that ends the session at
    /// `provider` (with the ID token as `id_token_hint`, the client id, and
    /// `postLogoutRedirectURI` and `state` when given). Signs out even when the provider's
    /// discovery document cannot be fetched (there is no URL then).
    @discardableResult
    public func signOut(at provider: OpenIDProvider, postLogoutRedirectURI: URL? = nil, state: String? = nil) async -> OpenIDSignOut {
        await restore()
        let idToken = identity?.idToken
        let endpoint: URL?
        do {
            endpoint = try await provider.metadata().endSessionEndpoint
        } catch {
            configuration.logger.warning("the provider's discovery document is unavailable; signing out without an end-session URL", metadata: ["code": "\(error.qualifiedCode)"])
            endpoint = nil
        }
        let revocation = await signOut()
        let request = endpoint.map {
            EndSessionRequest(endpoint: $0, idTokenHint: idToken, clientID: configuration.client.id, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
        }
        return OpenIDSignOut(revocation: revocation, endSession: request)
    }
}
