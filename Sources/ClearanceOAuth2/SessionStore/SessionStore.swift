import ClearanceStore

/// Where an ``OAuth2Session`` keeps its tokens between launches: part of the library, not the
/// app's chore.
///
/// Implementations: ``InMemorySessionStore`` (tests, short-lived tools),
/// ``EncryptedFileSessionStore`` (Linux, servers, command-line tools) and, on Apple platforms,
/// `KeychainSessionStore`.
///
/// A store never crashes on bad data: ``load()`` throws `SessionStoreError` and the session
/// starts signed out, reporting the cause.
public protocol SessionStore: Sendable {
    /// The stored session, or nil when there is none.
    func load() async throws(SessionStoreError) -> StoredSession?
    /// Replaces the stored session. A successful return means it is durable.
    func save(_ session: StoredSession) async throws(SessionStoreError)
    /// Removes the stored session (nothing stored is not an error).
    func clear() async throws(SessionStoreError)
}
