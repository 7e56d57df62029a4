import Clearance
import ClearanceStore

/// A store that lives as long as the process: for tests and short-lived tools.
public final class InMemorySessionStore: SessionStore {
    private let stored: Locked<StoredSession?>

    /// - Parameter initial: A session to start with.
    public init(_ initial: StoredSession? = nil) {
        self.stored = Locked(initial)
    }

    /// What the store holds now (for tests).
    public var current: StoredSession? { stored.withLock { $0 } }

    public func load() async throws(SessionStoreError) -> StoredSession? {
        stored.withLock { $0 }
    }

    public func save(_ session: StoredSession) async throws(SessionStoreError) {
        stored.withLock { $0 = session }
    }

    public func clear() async throws(SessionStoreError) {
        stored.withLock { $0 = nil }
    }
}
