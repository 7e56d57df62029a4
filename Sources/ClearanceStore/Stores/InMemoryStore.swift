import Clearance

/// A ``SecureStore`` that lives as long as the process: for tests and short-lived tools.
public final class InMemoryStore<Value: Sendable>: SecureStore {
    private let stored: Locked<Value?>

    /// - Parameter initial: A value to start with.
    public init(_ initial: Value? = nil) {
        self.stored = Locked(initial)
    }

    /// What the store holds now (for tests).
    public var current: Value? { stored.withLock { $0 } }

    public func load() async throws(SessionStoreError) -> Value? {
        stored.withLock { $0 }
    }

    public func save(_ value: Value) async throws(SessionStoreError) {
        stored.withLock { $0 = value }
    }

    public func clear() async throws(SessionStoreError) {
        stored.withLock { $0 = nil }
    }
}
