/// Why an ``IdentityVerifier`` is asked to verify a token response.
public enum IdentityCheck: Sendable {
    /// A sign-in (explicit or automatic) with the grant named `grant` (its
    /// ``OAuth2Grant/grantName``: `authorization_code`, `password`, `client_credentials`, …): the
    /// response must establish who signed in, as the verifier requires for that grant.
    case signIn(grant: String)
    /// A refresh of a session that holds `current` (nil when it holds no identity): a new
    /// identity must be the same person (OpenID Connect Core §12.2); none keeps `current`.
    case refresh(current: SessionIdentity?)
}
