import Clearance
import PostgresNIO

/// Runs database work so that it ends when its connection does.
///
/// postgres-nio 1.33 never answers a query written to a connection that is already closed (the
/// channel's handlers are gone, so the query's promise is never completed), and an await on it
/// cannot be cancelled: a node that lost its database would wait for ever. So the work runs on
/// a task of its own, and the caller resumes with an error as soon as the connection closes or
/// the caller is cancelled; work that never returns is left behind (it holds only itself).
enum BoundedQuery {
    /// The connection closed before the work was done.
    struct ConnectionLost: Error, CustomStringConvertible {
        var description: String { "the connection to the database closed" }
    }

    static func run<T: Sendable>(on connection: PostgresConnection, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !connection.isClosed else { throw ConnectionLost() }
        let outcome = FirstResult<T, any Error>()
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
                connection.closeFuture.whenComplete { _ in outcome.resume(with: .failure(ConnectionLost())) }
            }
        } onCancel: {
            outcome.resume(with: .failure(CancellationError()))
        }
    }
}
