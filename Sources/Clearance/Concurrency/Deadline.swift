/// Runs an operation with a deadline and returns the moment the deadline passes, even when the
/// operation ignores cancellation (an HTTP client still waiting for a connection, an app's
/// authorizer that never answers): the operation runs in its own task, which is cancelled and
/// left behind. The channel client's authorization deadline and the entitlement provider's
/// verification deadline use it.
package enum Deadline {
    package static func run<Value: Sendable>(
        _ timeout: Duration,
        timeoutError: @escaping @Sendable () -> any Error,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await run(sleeping: { try await Task.sleep(for: timeout) }, timeoutError: timeoutError, operation)
    }

    /// As ``run(_:timeoutError:_:)``, the deadline being the end of `sleep` (a sleep on a clock
    /// of the caller's, which a test may move by hand).
    package static func run<Value: Sendable>(
        sleeping sleep: @escaping @Sendable () async throws -> Void,
        timeoutError: @escaping @Sendable () -> any Error,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard race.begin(continuation), !Task.isCancelled else {
                    return race.finish(.failure(CancellationError()))
                }
                race.start(
                    work: Task {
                        do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                    },
                    timer: Task {
                        do { try await sleep() } catch { return }
                        race.finish(.failure(timeoutError()))
                    }
                )
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// Whoever finishes first resumes the caller and cancels the rest.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var tasks: [Task<Void, Never>] = []
            var done = false
        }

        private let state = Locked(State())

        /// Registers the caller; false (and resumes it with `CancellationError`) when the race was
        /// already decided by a cancellation.
        func begin(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
            let alreadyDone = state.withLock { s -> Bool in
                if !s.done { s.continuation = continuation }
                return s.done
            }
            if alreadyDone { continuation.resume(throwing: CancellationError()) }
            return !alreadyDone
        }

        func start(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let cancelNow = state.withLock { s -> Bool in
                s.tasks = [work, timer]
                return s.done
            }
            if cancelNow {
                work.cancel()
                timer.cancel()
            }
        }

        func finish(_ result: Result<Value, any Error>) {
            let (continuation, tasks) = state.withLock { s -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
                guard !s.done else { return (nil, []) }
                s.done = true
                defer { s.continuation = nil }
                return (s.continuation, s.tasks)
            }
            continuation?.resume(with: result)
            for task in tasks { task.cancel() }
        }
    }
}
