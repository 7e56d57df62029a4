/// Yields the credential to put on the next request: the one protocol every source, cache and
/// session in Clearance implements (think golang's `oauth2.TokenSource`).
///
/// Conformers throw ``AuthorizationError`` (``AuthorizationError/missingCredential(source:underlying:)``
/// when they have nothing, ``AuthorizationError/cancelled`` when the caller was cancelled), and
/// never return an empty credential.
public protocol CredentialSource: Sendable {
    /// The credential for the next request.
    func credential() async throws(AuthorizationError) -> Credential
}

/// A source that can drop a credential the server refused and fetch a new one.
///
/// `AuthorizedClient` calls ``refreshCredential(after:)`` at most once per request, after a 401
/// that allows it; implementations share one fetch among every concurrent caller and return a
/// newer credential at once when one was already fetched after `rejected`.
public protocol RefreshableCredentialSource: CredentialSource {
    /// Replaces `rejected` (if it is still the current credential) and returns the new one.
    func refreshCredential(after rejected: Credential) async throws(AuthorizationError) -> Credential
    /// Forgets the current credential; the next call to ``CredentialSource/credential()`` fetches a new one.
    func invalidate()
}

extension Credential {
    /// Checks what every source must guarantee: not empty, no control characters.
    /// - Throws: ``AuthorizationError/missingCredential(source:underlying:)`` or ``AuthorizationError/misconfigured(reason:)``.
    public func validated(source: String) throws(AuthorizationError) -> Credential {
        if isEmpty { throw .missingCredential(source: source) }
        if hasControlCharacters {
            throw .misconfigured(reason: "the credential from '\(source)' contains control characters and cannot be put on a request")
        }
        return self
    }
}
