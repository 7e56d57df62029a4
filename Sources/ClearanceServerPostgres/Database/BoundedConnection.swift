import Clearance
import PostgresNIO

/// A database connection whose work ends when the connection does.
///
/// postgres-nio 1.33 never answers a query written to a connection that is already closed (the
/// channel's handlers are gone, so the query's promise is never completed), and an await on it
/// cannot be cancelled: a node that lost its database would wait for ever. So each piece of work
/// runs on a task of its own, and the caller resumes with an error as soon as the connection
/// closes or the caller is cancelled. One close callback per connection fails whatever still
/// waits on it (a callback per query would pile up on a connection that lives as long as the link).
///
/// ``close()`` refuses new work and lets the work already running end first (at most
/// ``closeWait``): a query written while the connection closes was never answered, and its task,
/// with the connection it holds, was never freed (a node stopping during its terminations poll:
/// LeakSanitizer found the cycle). Work whose connection the database closes between two of its
/// queries is still left behind, its caller answered (a LeakSanitizer suppression names it).
final class BoundedConnection: Sendable {
    /// The connection closed before the work was done.
    struct ConnectionLost: Error, CustomStringConvertible {
        var description: String { "the connection to the database closed" }
    }

    private struct Waiting {
        /// The connection closed.
        var closed = false
        /// ``close()`` was called: no new work.
        var closing = false
        var nextID: UInt64 = 0
        /// Fails one waiting piece of work with ``ConnectionLost``.
        var failures: [UInt64: @Sendable () -> Void] = [:]
        /// Work whose task has not ended (its caller may have stopped waiting for it).
        var running = 0
    }

    /// How long ``close()`` lets the work running on the connection end before it closes it.
    let closeWait: Duration

    let connection: PostgresConnection
    private let waiting = Locked(Waiting())
    /// Opened once ``close()`` was called and no work runs, or once the connection closed.
    private let idle = Latch()

    /// `connection`, whose ``close()`` lets running work end for at most `closeWait`.
    init(_ connection: PostgresConnection, closeWait: Duration = .seconds(2)) {
        self.connection = connection
        self.closeWait = closeWait
        let (waiting, idle) = (self.waiting, self.idle)
        connection.closeFuture.whenComplete { _ in
            let failures = waiting.withLock { waiting -> [@Sendable () -> Void] in
                waiting.closed = true
                defer { waiting.failures = [:] }
                return Array(waiting.failures.values)
            }
            for fail in failures { fail() }
            idle.open()
        }
    }

    /// Runs `work` (queries on ``connection``); throws ``ConnectionLost`` once the connection
    /// closes, `CancellationError` once the caller is cancelled.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = FirstResult<T, any Error>()
        let id = waiting.withLock { waiting -> UInt64? in
            guard !waiting.closed, !waiting.closing, !connection.isClosed else { return nil }
            waiting.nextID += 1
            waiting.running += 1
            waiting.failures[waiting.nextID] = { outcome.resume(with: .failure(ConnectionLost())) }
            return waiting.nextID
        }
        guard let id else { throw ConnectionLost() }
        defer { waiting.withLock { _ = $0.failures.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.install(continuation)
                Task {
                    defer { self.ended() }
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

    /// Refuses new work (``ConnectionLost``), lets the work running end (at most ``closeWait``,
    /// and not once the connection closed by itself), then closes the connection.
    func close() async throws {
        let busy = waiting.withLock { waiting -> Bool in
            waiting.closing = true
            return waiting.running > 0
        }
        if busy { await idle.wait(atMost: closeWait) }
        try await connection.close()
    }

    /// A piece of work's task ended: the last one lets a waiting ``close()`` go.
    private func ended() {
        let last = waiting.withLock { waiting -> Bool in
            waiting.running -= 1
            return waiting.running == 0 && waiting.closing
        }
        if last { idle.open() }
    }

    /// How many pieces of work are running (for tests).
    var running: Int { waiting.withLock { $0.running } }
}
