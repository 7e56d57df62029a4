/// Decides who a token response says signed in, before an ``OAuth2Session`` uses or stores the
/// tokens: OpenID Connect's ID token validation is one (ClearanceOpenID's `IDTokenVerifier`).
///
/// The session calls it for every token response of a sign-in and of a refresh
/// (``OAuth2SessionConfiguration/identityVerifier``):
///
/// - it returns the ``SessionIdentity`` to keep with the session (or nil for none);
/// - it throws ``OAuth2Error/identityRefused(_:)`` when the response must not be used: a
///   sign-in then stores nothing; a refresh ends the session (tokens discarded, signed out,
///   ``OAuth2SessionEvent/sessionEnded(_:)`` saying why), so an identity never changes silently.
///   Either way the refresh token nobody holds any more is revoked, when there is a revocation
///   endpoint;
/// - it throws ``OAuth2Error/identityUnavailable(_:)`` when it could not decide (its provider's
///   keys could not be fetched): a sign-in fails (its tokens revoked); a refresh loses nothing:
///   the new tokens are saved and used with the identity verified before, and the ID token
///   waits, never used, for the next refresh to verify it (``TokenResponse/idToken`` then
///   carries it when the new response has none).
///
/// Nothing it throws or logs may contain a token.
public protocol IdentityVerifier: Sendable {
    /// Verifies the identity `response` carries.
    /// - Returns: The identity to keep; at a refresh without a new identity, the current one.
    func verifyIdentity(in response: TokenResponse, for check: IdentityCheck) async throws(OAuth2Error) -> SessionIdentity?

    /// Called once when the session restores `identity` from its store at launch, so the verifier
    /// can take back what it saved with it (``SessionIdentity/provider``). Does nothing by default.
    func restore(_ identity: SessionIdentity) async

    /// The issuer whose identities it verifies (OpenID Connect), recorded with the stored session
    /// (``SessionProvenance/issuer``); nil by default.
    var issuerIdentifier: String? { get }
}

extension IdentityVerifier {
    public func restore(_ identity: SessionIdentity) async {}
    public var issuerIdentifier: String? { nil }
}
