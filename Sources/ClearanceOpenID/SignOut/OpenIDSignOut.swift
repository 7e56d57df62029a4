import Clearance
import ClearanceOAuth2
import Foundation

/// What signing out of an OpenID Connect session did: the revocation at the authorization
/// server, and the URL that ends the user's session at the provider, when it has an
/// `end_session_endpoint`.
public struct OpenIDSignOut: Sendable, CustomStringConvertible {
    /// What happened to the tokens at the server (the session is signed out whatever it says).
    public let revocation: RevocationOutcome
    /// The URL the app opens to end the session at the provider (it carries the ID token as
    /// `id_token_hint`: open it, do not log it); nil when the provider has no end-session endpoint.
    public let endSession: EndSessionRequest?

    public var description: String {
        "OpenIDSignOut(revocation: \(revocation), end session: \(endSession.map { "\($0)" } ?? "none"))"
    }
}
