/// Runs store writes one after another, in the order they were asked for, so that a clear
/// (a sign-out, a customer switch) can never be overtaken by an older save: the OAuth2 session
/// and the customer-token source keep their stores consistent with it.
///
/// Each operation runs in its own task: cancelling the caller does not stop a write halfway
/// (the caller stops waiting; the write completes). No lock is held across an `await`.
package final class CommitQueue: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    package init() {}

    /// Runs `operation` after every operation enqueued before it; returns its result.
    package func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
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
