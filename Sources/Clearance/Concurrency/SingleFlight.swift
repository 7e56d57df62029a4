
/// Runs at most one operation at a time and shares its result with every caller that arrives
/// while it runs: the one mechanism behind every refresh, automatic sign-in and
/// re-authorization in Clearance.
///
/// - The operation runs in its own task, so cancelling the caller that started it does not
///   cancel it for the others.
/// - A cancelled caller stops waiting at once with `CancellationError`; when every caller has
///   gone, the operation itself is cancelled.
/// - No lock is held across an `await`.
public final class SingleFlight<Value: Sendable>: Sendable {
    private struct State {
        var flight: UInt64?            // id of the operation running now
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextID: UInt64 = 0
        var started: Int = 0
    }

    private let state = Locked(State())

    /// What a caller found when it came to wait.
    private enum Joined { case cancelled, waiting, starting(UInt64) }

    public init() {}

    /// How many operations have been started so far (for tests and benchmarks).
    package var startedCount: Int { state.withLock { $0.started } }

    /// Callers waiting now; 0 once every caller returned.
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// True while an operation is running.
    public var isRunning: Bool { state.withLock { $0.flight != nil } }

    /// Joins the operation in flight, or starts `operation` if none is, and returns its result.
    public func run(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let joined: Joined = state.withLock { s in
                    // A task's cancelled flag is set before its `onCancel` runs, and both sides
                    // take this lock: a cancellation is either seen here (never waits) or finds
                    // the waiter there.
                    if Task.isCancelled { return .cancelled }
                    s.waiters[waiterID] = continuation
                    guard s.flight == nil else { return .waiting }
                    s.nextID += 1
                    s.flight = s.nextID
                    s.started += 1
                    return .starting(s.nextID)
                }
                switch joined {
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .waiting:
                    break
                case let .starting(flightID):
                    let task = Task { [self] in
                        let result: Result<Value, any Error>
                        do { result = .success(try await operation()) } catch { result = .failure(error) }
                        finish(flightID, with: result)
                    }
                    // Every caller may have left before the task was stored (their `onCancel`
                    // found no task to cancel): the operation is then cancelled here.
                    let orphaned = state.withLock { s -> Bool in
                        guard s.flight == flightID else { return false }
                        s.task = task
                        return s.waiters.isEmpty
                    }
                    if orphaned { task.cancel() }
                }
            }
        } onCancel: {
            // Not waiting (not yet, or already resumed by the result): nothing to do.
            let (waiter, orphaned) = state.withLock { s -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                guard let waiter = s.waiters.removeValue(forKey: waiterID) else { return (nil, nil) }
                return (waiter, s.waiters.isEmpty ? s.task : nil)
            }
            waiter?.resume(throwing: CancellationError())
            orphaned?.cancel()
        }
    }

    private func finish(_ flightID: UInt64, with result: Result<Value, any Error>) {
        let waiters: [CheckedContinuation<Value, any Error>] = state.withLock { s in
            guard s.flight == flightID else { return [] }
            s.flight = nil
            s.task = nil
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for continuation in waiters {
            continuation.resume(with: result)
        }
    }
}
