import Clearance

/// A thread-safe counter that escaping and concurrent closures can capture: count token fetches,
/// requests or callbacks in a test.
public final class Counter: Sendable {
    private let storage = Locked(0)

    public init() {}

    /// The current value.
    public var value: Int { storage.withLock { $0 } }

    /// Adds one and returns the new value.
    @discardableResult
    public func increment() -> Int { storage.withLock { $0 += 1; return $0 } }
}
