import Foundation
import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers. Subscribers that stop iterating
/// are removed; a slow subscriber loses its oldest buffered values, never blocks the sender.
public final class EventBroadcaster<Element: Sendable>: Sendable {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    }
    private let state = Mutex(State())
    private let bufferLimit: Int

    /// - Parameter bufferLimit: How many undelivered values each subscriber keeps.
    public init(bufferLimit: Int = 256) {
        self.bufferLimit = bufferLimit
    }

    /// A new stream of every value sent from now on.
    public func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.withLock { s -> Int in
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber.
    public func send(_ value: Element) {
        let targets = state.withLock { Array($0.continuations.values) }
        for continuation in targets { continuation.yield(value) }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        let targets = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            defer { s.continuations = [:] }
            return Array(s.continuations.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
