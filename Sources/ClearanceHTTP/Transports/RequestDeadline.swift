import Clearance
import Foundation

/// The deadline of one request, started when it is sent: what the built-in transports and
/// ``DeadlineTransport`` bound every wait for the network with.
///
/// - ``whole(_:)`` runs a whole exchange (head and body) under the deadline;
/// - ``step(_:)`` runs one wait of a streamed exchange (the head, a chunk) under what is left
///   of the deadline and, when set, the idle limit.
///
/// When the time is up the caller gets ``TransportError/timedOut(endpoint:limit:idle:)`` at
/// once and the exchange's task is cancelled (which cancels the request), even when the HTTP
/// library is slow to notice.
struct RequestDeadline: Sendable {
    let endpoint: String
    let limit: Duration
    let idle: Duration?
    let end: ContinuousClock.Instant

    init(url: URL?, limit: Duration, idle: Duration? = nil) {
        self.endpoint = TransportError.endpoint(of: url)
        self.limit = limit
        self.idle = idle
        self.end = ContinuousClock.now + limit
    }

    var timedOut: TransportError { .timedOut(endpoint: endpoint, limit: limit, idle: false) }

    /// `operation` under what is left of the deadline.
    func whole<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let remaining = end - ContinuousClock.now
        guard remaining > .zero else { throw timedOut }
        let error = timedOut
        return try await Deadline.run(remaining, timeoutError: { error }, operation)
    }

    /// `operation` (a streamed exchange, whose closure cannot leave the caller) under what is
    /// left of the deadline: when the time is up its task is cancelled and the caller gets
    /// ``TransportError/timedOut(endpoint:limit:idle:)`` once it has unwound (the built-in
    /// transports unwind at once: their every wait is cancellable).
    func structured<Value: Sendable>(_ operation: () async throws -> Value) async throws -> Value {
        let error = timedOut
        guard end > ContinuousClock.now else { throw error }
        let end = end
        return try await withoutActuallyEscaping(operation) { operation in
            let box = UncheckedOperation(run: operation)
            return try await withThrowingTaskGroup(of: Value?.self) { group in
                group.addTask { try await box.run() }
                group.addTask {
                    try await Task.sleep(until: end, clock: .continuous)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else { throw error }
                return value
            }
        }
    }

    /// One wait of a stream: under what is left of the deadline, or the idle limit when that
    /// comes first.
    func step<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let remaining = end - ContinuousClock.now
        guard remaining > .zero else { throw timedOut }
        let error: TransportError
        let wait: Duration
        if let idle, idle < remaining {
            (wait, error) = (idle, .timedOut(endpoint: endpoint, limit: idle, idle: true))
        } else {
            (wait, error) = (remaining, timedOut)
        }
        return try await Deadline.run(wait, timeoutError: { error }, operation)
    }
}

/// A closure that never leaves the task group it runs in (`withoutActuallyEscaping`).
private struct UncheckedOperation<Value>: @unchecked Sendable {
    let run: () async throws -> Value
}
