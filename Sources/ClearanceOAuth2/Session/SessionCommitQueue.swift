import Clearance

/// Runs the session's store writes one after another, in the order they were asked for, so
/// that a sign-out's clear can never be overtaken by an older refresh's save.
///
/// Each operation runs in its own task: cancelling the caller does not stop a write halfway
/// (the caller stops waiting; the write completes). No lock is held across an `await`.
final class SessionCommitQueue: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    /// Runs `operation` after every operation enqueued before it; returns its result.
    func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let task: Task<T, Never> = tail.withLock { tail in
            let previous = tail
            let task = Task {
                await previous?.value
                return await operation()
            }
            tail = Task { _ = await task.value }
            return task
        }
        return await task.value
    }
}
