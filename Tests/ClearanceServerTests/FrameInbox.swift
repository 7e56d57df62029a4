/// Frames a test client received, handed out one at a time with a timeout.
actor FrameInbox {
    private var buffered: [String] = []
    private var finished = false
    private var waiter: CheckedContinuation<String?, Never>?
    private var waiterID = 0

    func push(_ frame: String) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: frame)
        } else {
            buffered.append(frame)
        }
    }

    func finish() {
        finished = true
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: nil)
        }
    }

    /// Whether the connection ended and every frame was handed out.
    var isDrained: Bool { finished && buffered.isEmpty }

    /// The next frame, or `nil` when the connection ended or `timeout` passed.
    func next(timeout: Duration) async -> String? {
        if !buffered.isEmpty { return buffered.removeFirst() }
        if finished { return nil }
        waiterID += 1
        let id = waiterID
        let timer = Task {
            // sleep: the deadline of a wait for a frame (raced against its arrival), not a wait.
            try? await Task.sleep(for: timeout)
            self.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiter = continuation
        }
    }

    private func expire(_ id: Int) {
        guard id == waiterID, let waiter else { return }
        self.waiter = nil
        waiter.resume(returning: nil)
    }
}
