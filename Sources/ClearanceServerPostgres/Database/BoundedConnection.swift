import Clearance
import PostgresNIO

/// A database connection whose work ends when the connection does.
///
/// postgres-nio 1.33 never answers a query written to a connection that is already closed (the
/// channel's handlers are gone, so the query's promise is never completed), and an await on it
/// cannot be cancelled: a node that lost its database would wait for ever. So each piece of work
/// runs on a task of its own, and the caller resumes with an error as soon as the connection
/// closes or the caller is cancelled; work that never returns is left behind (it holds only
/// itself). One close callback per connection fails whatever still waits on it (a callback per
/// query would pile up on a connection that lives as long as the link).
final class BoundedConnection: Sendable {
    /// The connection closed before the work was done.
    struct ConnectionLost: Error, CustomStringConvertible {
        var description: String { "the connection to the database closed" }
    }

    private struct Waiting {
        var closed = false
        var nextID: UInt64 = 0
        /// Fails one waiting piece of work with ``ConnectionLost``.
        var failures: [UInt64: @Sendable () -> Void] = [:]
    }

    let connection: PostgresConnection
    private let waiting = Locked(Waiting())

    init(_ connection: PostgresConnection) {
        self.connection = connection
        let waiting = self.waiting
        connection.closeFuture.whenComplete { _ in
            let failures = waiting.withLock { waiting -> [@Sendable () -> Void] in
                waiting.closed = true
                defer { waiting.failures = [:] }
                return Array(waiting.failures.values)
            }
            for fail in failures { fail() }
        }
    }

    /// Runs `work` (queries on ``connection``); throws ``ConnectionLost`` once the connection
    /// closes, `CancellationError` once the caller is cancelled.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = FirstResult<T, any Error>()
        let id = waiting.withLock { waiting -> UInt64? in
            guard !waiting.closed, !connection.isClosed else { return nil }
            waiting.nextID += 1
            waiting.failures[waiting.nextID] = { outcome.resume(with: .failure(ConnectionLost())) }
            return waiting.nextID
        }
        guard let id else { throw ConnectionLost() }
        defer { waiting.withLock { _ = $0.failures.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.install(continuation)
                Task {
                    do {
                        outcome.resume(with: .success(try await work()))
                    } catch {
                        outcome.resume(with: .failure(error))
                    }
                }
            }
        } onCancel: {
            outcome.resume(with: .failure(CancellationError()))
        }
    }

    /// Closes the connection.
    func close() async throws {
        try await connection.close()
    }
}
