import Clearance
import ClearanceStore

/// A store that lives as long as the process: for tests and short-lived tools (an
/// ``InMemoryStore`` of ``StoredSession``s).
public final class InMemorySessionStore: SessionStore {
    private let stored: InMemoryStore<StoredSession>

    /// - Parameter initial: A session to start with.
    public init(_ initial: StoredSession? = nil) {
        self.stored = InMemoryStore(initial)
    }

    /// What the store holds now (for tests).
    public var current: StoredSession? { stored.current }

    public func load() async throws(SessionStoreError) -> StoredSession? {
        try await stored.load()
    }

    public func save(_ session: StoredSession) async throws(SessionStoreError) {
        try await stored.save(session)
    }

    public func clear() async throws(SessionStoreError) {
        try await stored.clear()
    }
}
