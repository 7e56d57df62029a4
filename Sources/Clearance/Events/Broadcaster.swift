/// Fans values out to any number of `AsyncStream` subscribers: the one broadcaster behind every
/// event and state stream in Clearance.
///
/// - An *event* broadcaster (``init(bufferLimit:)``) sends each subscriber what is sent after it
///   subscribed.
/// - A *state* broadcaster (``init(replaying:bufferLimit:)``) first gives each new subscriber the
///   value to replay (the current state, or a snapshot), taken under the same lock that registers
///   it, so no change is missed or reordered.
///
/// Subscribers that stop iterating are removed; a slow subscriber loses its oldest buffered
/// values and never blocks the sender. Yielding never suspends, so values are yielded under the
/// lock and every subscriber sees them in the order they were sent.
package final class Broadcaster<Element: Sendable>: Sendable {
    private struct State {
        var replay: Element?
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state: Locked<State>
    private let bufferLimit: Int

    /// An event broadcaster: nothing is replayed to new subscribers.
    package init(bufferLimit: Int = 256) {
        state = Locked(State())
        self.bufferLimit = bufferLimit
    }

    /// A state broadcaster: every new subscriber first gets `initial`, or what replaced it.
    package init(replaying initial: Element, bufferLimit: Int = 64) {
        state = Locked(State(replay: initial))
        self.bufferLimit = bufferLimit
    }

    /// What a new subscriber gets first (a state broadcaster's current value).
    package var replayed: Element? { state.withLock { $0.replay } }

    /// How many streams are subscribed now (a stream that ended, or whose reader went away, no
    /// longer counts): a test waits on it to know that a reader is listening.
    package var subscriberCount: Int { state.withLock { $0.continuations.count } }

    /// A new stream: the replayed value (if any), then every value sent from now on. A stream
    /// made after ``finish()`` holds the replayed value and ends.
    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { s in
            if let replay = s.replay { continuation.yield(replay) }
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

    /// Sends `value` to every subscriber; a state broadcaster also replays it from now on.
    package func send(_ value: Element) {
        state.withLock { s in
            if s.replay != nil { s.replay = value }
            for continuation in s.continuations.values { continuation.yield(value) }
        }
    }

    /// Updates the replayed value and sends what `change` returns (nothing when it returns nil),
    /// in one step under the lock: for states whose changes are not the state itself (a member
    /// list replayed as a snapshot, changed by additions and removals).
    package func update(_ change: (inout Element?) -> Element?) {
        state.withLock { s in
            guard let value = change(&s.replay) else { return }
            for continuation in s.continuations.values { continuation.yield(value) }
        }
    }

    /// Ends every subscriber's stream; later subscribers get only the replayed value.
    package func finish() {
        let continuations = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.finished = true
            defer { s.continuations = [:] }
            return Array(s.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
