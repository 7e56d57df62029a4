import Clearance

/// A latch the test opens: a task that waits before ``open()`` is held until then (or until it
/// is cancelled), one that comes after passes at once. The fake server holds an answer on it
/// instead of sleeping, and the test sees how many are held.
package final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// How many tasks are held now.
    package var heldCount: Int { state.withLock { $0.held.count } }

    /// Returns once the gate is open, or the task is cancelled.
    package func wait() async {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let passes = state.withLock { s -> Bool in
                    if s.isOpen || Task.isCancelled { return true }
                    s.held[id] = continuation
                    return false
                }
                if passes { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.held.removeValue(forKey: id) }?.resume()
        }
    }

    /// Lets every held task go, and every later one pass.
    package func open() {
        let held = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.isOpen = true
            defer { s.held = [:] }
            return Array(s.held.values)
        }
        for continuation in held { continuation.resume() }
    }
}
