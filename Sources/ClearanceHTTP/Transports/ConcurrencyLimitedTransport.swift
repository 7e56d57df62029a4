import Foundation
import Clearance
import HTTPTypes

/// Wraps a transport so that at most `limit` requests are on the wire at once; the rest wait
/// in a FIFO queue (cancellable). Keeps a burst of thousands of requests from piling up inside
/// the HTTP library's connection pool. A request gives its place back as soon as it ends: when
/// it is cancelled, or at its deadline (the built-in transports end every request by one).
public struct ConcurrencyLimitedTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let gate: AsyncGate

    public init(_ base: any HTTPTransport, limit: Int) {
        self.base = base
        self.gate = AsyncGate(limit: max(1, limit))
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await gate.enter()
        defer { gate.leave() }
        return try await base.send(request, body: body)
    }

    public func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        try await gate.enter()
        defer { gate.leave() }
        return try await base.stream(request, body: body, receive: receive)
    }
}

/// A counting semaphore for async code: FIFO, cancellable, no lock held across `await`.
final class AsyncGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var order: [UInt64] = []
        var head = 0
        var nextID: UInt64 = 0
    }
    private let state: Locked<State>
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
        state = Locked(State(available: limit))
    }

    /// No request holds a slot or waits for one.
    var isIdle: Bool { state.withLock { $0.available == limit && $0.head == $0.order.count } }

    /// Waits for a slot. A task already cancelled never takes one, nor joins the queue.
    func enter() async throws {
        try Task.checkCancellation()
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted = state.withLock { s -> Bool? in
                    // Cancelled between the check above and now: the handler found nothing to resume.
                    if Task.isCancelled { return nil }
                    if s.available > 0 && s.head == s.order.count {
                        s.available -= 1
                        return true
                    }
                    s.waiters[id] = continuation
                    s.order.append(id)
                    return false
                }
                switch admitted {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: CancellationError())
                case false?: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            while s.head < s.order.count {
                let id = s.order[s.head]
                s.head += 1
                if let waiter = s.waiters.removeValue(forKey: id) {
                    if s.head > 1024 && s.head * 2 > s.order.count {
                        s.order.removeFirst(s.head)
                        s.head = 0
                    }
                    return waiter
                }
            }
            s.available += 1
            return nil
        }
        next?.resume()
    }
}
