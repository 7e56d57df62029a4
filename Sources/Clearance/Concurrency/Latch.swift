/// A one-shot latch any number of tasks can wait on: ``open()`` lets every waiting task go, and
/// every later one passes at once. A waiting task that is cancelled goes at once too (its wait
/// ends; it is not an error).
///
/// ```swift
/// let stopping = Latch()
/// let worker = Task { await stopping.wait(atMost: .seconds(3_600)) }   // a retry's pause
/// stopping.open()
/// await worker.value                                                 // at once, not in an hour
/// ```
package final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextID: UInt64 = 0
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// Whether ``open()`` was called.
    package var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many tasks are waiting now.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Lets every waiting task go, and every later one pass; later calls do nothing.
    package func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once open, or once the waiting task is cancelled.
    package func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let passes = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if passes { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }

    /// Waits until open, at most `duration` (less when the waiting task is cancelled).
    package func wait(atMost duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
