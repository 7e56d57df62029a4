import Foundation
import Clearance
import HTTPTypes
import NIOCore

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
///
/// A waiter that is cancelled leaves its id in the arrival order until a slot reaches it; the
/// order is compacted when such ids outnumber the live waiters, so a storm of cancelled requests
/// behind a slot that is held long costs no memory that stays.
final class AsyncGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// The waiting ids in the order they came (a cancelled one stays until reached or compacted).
        var order = CircularBuffer<UInt64>()
        var nextID: UInt64 = 0

        /// Drops the ids of cancelled waiters once they are most of the order.
        mutating func compactIfMostlyCancelled() {
            guard order.count > 2 * waiters.count + 1_024 else { return }
            order = CircularBuffer(order.filter { waiters[$0] != nil })
        }
    }
    private let state: Locked<State>
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
        state = Locked(State(available: limit))
    }

    /// No request holds a slot or waits for one.
    var isIdle: Bool { state.withLock { $0.available == limit && $0.waiters.isEmpty } }

    /// Ids in the arrival order, cancelled ones included (tests: its bound).
    var queuedIDs: Int { state.withLock { $0.order.count } }

    /// Waits for a slot. A task already cancelled never takes one, nor joins the queue.
    func enter() async throws {
        try Task.checkCancellation()
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted = state.withLock { s -> Bool? in
                    // Cancelled between the check above and now: the handler found nothing to resume.
                    if Task.isCancelled { return nil }
                    // A free slot with no live waiter ahead (while one waits, every slot is taken).
                    if s.available > 0 && s.waiters.isEmpty {
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
            let waiter = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                defer { s.compactIfMostlyCancelled() }
                return s.waiters.removeValue(forKey: id)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            while let id = s.order.popFirst() {
                if let waiter = s.waiters.removeValue(forKey: id) { return waiter }
            }
            s.available += 1
            return nil
        }
        next?.resume()
    }
}
