import Foundation

/// A wait in a test that ran out of time.
package struct TimedOut: Error, CustomStringConvertible {
    package let description: String
}

/// Polls `condition` until it holds; throws ``TimedOut`` naming `what` after `timeout` (stretched
/// by ``TestTiming/scale`` under a sanitizer).
package func eventually(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let timeout = TestTiming.scaled(timeout)
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TimedOut(description: "timed out after \(timeout) waiting for \(what)")
}

/// The first element of `sequence` for which `predicate` holds; throws ``TimedOut`` after `timeout`
/// (stretched by ``TestTiming/scale`` under a sanitizer).
package func first<S: AsyncSequence & Sendable>(
    _ sequence: S,
    timeout: Duration = .seconds(10),
    where predicate: @escaping @Sendable (S.Element) -> Bool
) async throws -> S.Element where S.Element: Sendable {
    let timeout = TestTiming.scaled(timeout)
    return try await withThrowingTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            for try await element in sequence where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else {
            throw TimedOut(description: "timed out after \(timeout) waiting for an element")
        }
        return found
    }
}

/// What `body` returns, run on a thread of its own: blocking work (a socket read, `runBlocking`)
/// must never block a thread of the cooperative pool, which the servers under test share.
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
