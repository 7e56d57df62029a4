
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
    private enum Waiter {
        case waiting(CheckedContinuation<Value, any Error>)
        case cancelledEarly
    }

    private struct State {
        var flight: UInt64?            // id of the operation running now
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
        var unregistered: Set<UInt64> = []  // callers between taking an id and waiting
        var nextID: UInt64 = 0
        var started: Int = 0
    }

    private let state = Locked(State())

    public init() {}

    /// How many operations have been started so far (for tests and benchmarks).
    package var startedCount: Int { state.withLock { $0.started } }

    /// Callers known to the flight now (waiting, or about to wait); 0 once every caller returned.
    package var waiterCount: Int { state.withLock { $0.waiters.count + $0.unregistered.count } }

    /// True while an operation is running.
    public var isRunning: Bool { state.withLock { $0.flight != nil } }

    /// Joins the operation in flight, or starts `operation` if none is, and returns its result.
    public func run(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { s -> UInt64 in
            s.nextID += 1
            s.unregistered.insert(s.nextID)
            return s.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let start: UInt64? = state.withLock { s in
                    s.unregistered.remove(waiterID)
                    if case .cancelledEarly = s.waiters[waiterID] {
                        s.waiters[waiterID] = nil
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    s.waiters[waiterID] = .waiting(continuation)
                    guard s.flight == nil else { return nil }
                    s.nextID += 1
                    s.flight = s.nextID
                    s.started += 1
                    return s.nextID
                }
                if let flightID = start {
                    let task = Task { [self] in
                        let result: Result<Value, any Error>
                        do { result = .success(try await operation()) } catch { result = .failure(error) }
                        finish(flightID, with: result)
                    }
                    state.withLock { s in
                        if s.flight == flightID { s.task = task }
                    }
                }
            }
        } onCancel: {
            let (waiter, orphaned): (Waiter?, Task<Void, Never>?) = state.withLock { s in
                guard let waiter = s.waiters.removeValue(forKey: waiterID) else {
                    // Not waiting yet: it must not start waiting. Already resumed (the operation
                    // finished first): nothing to do, and nothing may stay behind.
                    if s.unregistered.contains(waiterID) { s.waiters[waiterID] = .cancelledEarly }
                    return (nil, nil)
                }
                let orphaned = s.waiters.isEmpty ? s.task : nil
                return (waiter, orphaned)
            }
            if case .waiting(let continuation) = waiter {
                continuation.resume(throwing: CancellationError())
            }
            orphaned?.cancel()
        }
    }

    private func finish(_ flightID: UInt64, with result: Result<Value, any Error>) {
        let waiters: [Waiter] = state.withLock { s in
            guard s.flight == flightID else { return [] }
            s.flight = nil
            s.task = nil
            let waiting = s.waiters.filter { if case .waiting = $0.value { true } else { false } }
            for key in waiting.keys { s.waiters[key] = nil }
            return Array(waiting.values)
        }
        for case .waiting(let continuation) in waiters {
            continuation.resume(with: result)
        }
    }
}
