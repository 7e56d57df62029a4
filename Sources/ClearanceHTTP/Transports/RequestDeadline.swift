import Clearance
import Foundation

/// The deadline of one request, started when it is sent: what the built-in transports and
/// ``DeadlineTransport`` bound every wait for the network with, measured on the transport's
/// clock (`ContinuousClock` unless one was given, as tests do to move time by hand).
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
    /// The time since the request was sent, on the transport's clock.
    private let elapsed: @Sendable () -> Duration
    /// Sleeps until the given time after the request was sent, on the transport's clock.
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    init(url: URL?, limit: Duration, idle: Duration? = nil, clock: any Clock<Duration> = ContinuousClock()) {
        self.endpoint = TransportError.endpoint(of: url)
        self.limit = limit
        self.idle = idle
        (elapsed, sleepUntil) = Self.started(on: clock)
    }

    /// The clock's readings from now on, as offsets from now.
    private static func started<C: Clock<Duration>>(on clock: C) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let start = clock.now
        return ({ start.duration(to: clock.now) }, { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) })
    }

    var timedOut: TransportError { .timedOut(endpoint: endpoint, limit: limit, idle: false) }

    /// `operation` under what is left of the deadline.
    func whole<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        guard elapsed() < limit else { throw timedOut }
        let (error, limit, sleepUntil) = (timedOut, limit, sleepUntil)
        return try await Deadline.run(sleeping: { try await sleepUntil(limit) }, timeoutError: { error }, operation)
    }

    /// `operation` (a streamed exchange, whose closure cannot leave the caller) under what is
    /// left of the deadline: when the time is up its task is cancelled and the caller gets
    /// ``TransportError/timedOut(endpoint:limit:idle:)`` once it has unwound (the built-in
    /// transports unwind at once: their every wait is cancellable).
    func structured<Value: Sendable>(_ operation: () async throws -> Value) async throws -> Value {
        let error = timedOut
        guard elapsed() < limit else { throw error }
        let (limit, sleepUntil) = (limit, sleepUntil)
        return try await withoutActuallyEscaping(operation) { operation in
            let box = UncheckedOperation(run: operation)
            return try await withThrowingTaskGroup(of: Value?.self) { group in
                group.addTask { try await box.run() }
                group.addTask {
                    try await sleepUntil(limit)
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
        let now = elapsed()
        guard now < limit else { throw timedOut }
        let error: TransportError
        let end: Duration
        if let idle, idle < limit - now {
            (end, error) = (now + idle, .timedOut(endpoint: endpoint, limit: idle, idle: true))
        } else {
            (end, error) = (limit, timedOut)
        }
        let sleepUntil = sleepUntil
        return try await Deadline.run(sleeping: { try await sleepUntil(end) }, timeoutError: { error }, operation)
    }
}

/// A closure that never leaves the task group it runs in (`withoutActuallyEscaping`).
private struct UncheckedOperation<Value>: @unchecked Sendable {
    let run: () async throws -> Value
}
