/// A place that keeps one value (a session, a token set, an entitlement snapshot) between
/// launches, secret at rest: ``EncryptedFileStore`` (Linux, servers, command-line tools),
/// `KeychainStore` (Apple platforms) and ``InMemoryStore`` (tests, short-lived tools).
///
/// Every store in Clearance is one of these: OAuth2's session stores wrap them, the
/// entitlement provider keeps its token and snapshot in one, and an app can keep its own
/// values (a customer token) the same way.
///
/// A store never crashes on bad data: ``load()`` throws ``SessionStoreError`` and the caller
/// starts from nothing, reporting the cause.
public protocol SecureStore<Value>: Sendable {
    /// What the store keeps.
    associatedtype Value: Sendable
    /// The stored value, or nil when there is none.
    func load() async throws(SessionStoreError) -> Value?
    /// Replaces the stored value. A successful return means it is durable.
    func save(_ value: Value) async throws(SessionStoreError)
    /// Removes the stored value (nothing stored is not an error).
    func clear() async throws(SessionStoreError)
}
