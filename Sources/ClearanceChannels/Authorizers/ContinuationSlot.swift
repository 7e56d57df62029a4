import Clearance

/// Holds a continuation until the first of its resumers takes it.
final class ContinuationSlot<Value: Sendable>: Sendable {
    private let state = Locked<CheckedContinuation<Value, any Error>?>(nil)

    func set(_ continuation: CheckedContinuation<Value, any Error>) {
        state.withLock { $0 = continuation }
    }

    func take() -> CheckedContinuation<Value, any Error>? {
        state.withLock { $0.take() }
    }
}
