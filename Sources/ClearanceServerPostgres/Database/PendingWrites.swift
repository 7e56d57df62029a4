import Clearance

/// What a worker on a ``BackplaneConnection`` has yet to write, in order: added without waiting,
/// bounded (past `limit` the oldest go), taken one at a time once written, until stopped.
final class PendingWrites<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var stopped = false
    }

    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds `item` after the others; true when the oldest had to go to make room.
    func append(_ item: Element) -> Bool {
        state.withLock { state in
            state.items.append(item)
            guard state.items.count > limit else { return false }
            state.items.removeFirst(state.items.count - limit)
            return true
        }
    }

    /// The oldest item not yet written.
    var first: Element? { state.withLock { $0.items.first } }

    /// Forgets the oldest item: it is written.
    func removeFirst() {
        state.withLock { state in if !state.items.isEmpty { state.items.removeFirst() } }
    }

    var isEmpty: Bool { state.withLock { $0.items.isEmpty } }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Ends the worker's loop (what is pending stays unwritten).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Waits (at most `timeout`) until everything is written, stops, and closes `connection`.
    func stop(closing connection: BackplaneConnection, within timeout: Duration) async {
        await connection.close(whenDrained: { self.isEmpty }, within: timeout) { self.stop() }
    }
}
