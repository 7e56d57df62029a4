import Clearance
import Foundation

/// A streamed body whose every chunk is awaited under a ``RequestDeadline``; once a wait has
/// failed, every later one fails the same way (the abandoned wait may still be unwinding).
final class DeadlineChunks: Sendable {
    private let nextChunk: @Sendable () async throws -> Data?
    private let deadline: RequestDeadline
    private let failure = Locked<(any Error)?>(nil)

    init(deadline: RequestDeadline, next: @escaping @Sendable () async throws -> Data?) {
        self.deadline = deadline
        self.nextChunk = next
    }

    func next() async throws -> Data? {
        if let failure = failure.withLock({ $0 }) { throw failure }
        do {
            return try await deadline.step(nextChunk)
        } catch {
            failure.withLock { $0 = error }
            throw error
        }
    }

    var body: HTTPResponseBody { HTTPResponseBody { [self] in try await next() } }
}
