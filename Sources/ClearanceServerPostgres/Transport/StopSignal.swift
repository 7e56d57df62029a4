import Clearance

/// A one-shot signal any number of tasks can wait for: the link's "stop now".
final class StopSignal: Sendable {
    private let state = Locked<(fired: Bool, waiters: [UInt64: CheckedContinuation<Void, Never>], next: UInt64)>((false, [:], 0))

    var isFired: Bool { state.withLock { $0.fired } }

    /// Fires once; later calls do nothing.
    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once fired, or when the waiting task is cancelled.
    func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Waits `duration`, or less when fired or cancelled.
    func sleep(for duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
