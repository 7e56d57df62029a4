import Synchronization

/// Fans a changing value out to `AsyncStream` subscribers; each new stream starts with the
/// current value, taken under the same lock that adds it, so no change is missed or reordered.
final class ValueBroadcaster<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var next = 0
        var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
        var finished = false
    }

    private let state: Mutex<State>
    private let bufferLimit: Int

    init(_ initial: Value, bufferLimit: Int = 64) {
        state = Mutex(State(value: initial))
        self.bufferLimit = bufferLimit
    }

    var value: Value { state.withLock { $0.value } }

    func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { s in
            continuation.yield(s.value)
            guard !s.finished else { return nil }
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the value and sends it to every subscriber (in order: the lock is held while yielding,
    /// and yielding never suspends).
    func send(_ value: Value) {
        state.withLock { s in
            s.value = value
            for continuation in s.continuations.values { continuation.yield(value) }
        }
    }

    func finish() {
        let continuations = state.withLock { s -> [AsyncStream<Value>.Continuation] in
            s.finished = true
            defer { s.continuations = [:] }
            return Array(s.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
