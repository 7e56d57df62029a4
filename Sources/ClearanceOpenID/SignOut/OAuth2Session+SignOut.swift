import Clearance
import ClearanceOAuth2
import Foundation

extension OAuth2Session {
    /// Signs out of an OpenID Connect session (RP-Initiated Logout 1.0): signs out here first
    /// (revokes the tokens where the server allows it, clears the store), then returns the URL
    /// that ends the session at `provider` (with the ID token as `id_token_hint`, the client id,
    /// and `postLogoutRedirectURI` and `state` when given).
    ///
    /// There is no URL when the provider's discovery document cannot be fetched, when it lists
    /// no `end_session_endpoint`, or when `provider` is not the issuer of the session's identity
    /// (the ID token never goes to another provider); the session is signed out all the same.
    @discardableResult
    public func signOut(at provider: OpenIDProvider, postLogoutRedirectURI: URL? = nil, state: String? = nil) async -> OpenIDSignOut {
        await restore()
        let identity = identity
        let revocation = await signOut()
        if let issuer = identity?.issuer, issuer != provider.issuerIdentifier {
            configuration.logger.warning("the session's identity is another provider's; signed out without an end-session URL", metadata: [
                "code": "\(OpenIDError.providerMismatch(session: issuer, provider: provider.issuerIdentifier).qualifiedCode)",
            ])
            return OpenIDSignOut(revocation: revocation, endSession: nil)
        }
        let endpoint: URL?
        do {
            endpoint = try await provider.metadata().endSessionEndpoint
        } catch {
            configuration.logger.warning("the provider's discovery document is unavailable; signed out without an end-session URL", metadata: ["code": "\(error.qualifiedCode)"])
            endpoint = nil
        }
        let request = endpoint.map {
            EndSessionRequest(endpoint: $0, idTokenHint: identity?.idToken, clientID: configuration.client.id, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
        }
        return OpenIDSignOut(revocation: revocation, endSession: request)
    }
}
