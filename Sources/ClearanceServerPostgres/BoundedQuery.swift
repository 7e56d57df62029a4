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
        let outcome = Outcome<T>()
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

    /// The first result resumes the waiter; later ones are ignored.
    private final class Outcome<T: Sendable>: Sendable {
        private enum State {
            case empty
            case waiting(CheckedContinuation<T, any Error>)
            case resolved(Result<T, any Error>)
            case done
        }

        private let state = Locked(State.empty)

        func install(_ continuation: CheckedContinuation<T, any Error>) {
            let early: Result<T, any Error>? = state.withLock { state in
                if case let .resolved(result) = state {
                    state = .done
                    return result
                }
                state = .waiting(continuation)
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func resume(with result: Result<T, any Error>) {
            let waiter: CheckedContinuation<T, any Error>? = state.withLock { state in
                switch state {
                case .empty:
                    state = .resolved(result)
                    return nil
                case let .waiting(continuation):
                    state = .done
                    return continuation
                case .resolved, .done:
                    return nil
                }
            }
            waiter?.resume(with: result)
        }
    }
}
