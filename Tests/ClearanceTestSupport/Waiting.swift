import Foundation

/// A wait in a test that ran out of time.
package struct TimedOut: Error, CustomStringConvertible {
    package let description: String
}

/// Polls `condition` until it holds; throws ``TimedOut`` naming `what` after `timeout` (stretched
/// by ``TestTiming/scale``).
package func eventually(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let timeout = TestTiming.scaled(timeout)
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        // sleep: the pace of the poll, not a wait.
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TimedOut(description: "timed out after \(timeout) waiting for \(what)")
}

/// Does `action`, then polls `condition` (through ``eventually(_:timeout:_:)``), doing `action`
/// again each `interval`, until `condition` holds: for an effect whose cause must be repeated
/// until it takes (an event published before another node knew of the subscriber is not
/// delivered, by design). Throws ``TimedOut`` naming
/// `what` after `timeout` (stretched by ``TestTiming/scale``).
package func retrying(
    _ what: String, every interval: Duration = .milliseconds(200), timeout: Duration = .seconds(10),
    _ action: () async throws -> Void, until condition: () async throws -> Bool
) async throws {
    var acted: ContinuousClock.Instant?
    try await eventually(what, timeout: timeout) {
        if acted.map({ ContinuousClock.now - $0 >= interval }) ?? true {
            try await action()
            acted = .now
        }
        return try await condition()
    }
}

/// The first element of `sequence` for which `predicate` holds; throws ``TimedOut`` after `timeout`
/// (stretched by ``TestTiming/scale``).
package func first<S: AsyncSequence & Sendable>(
    _ sequence: S,
    timeout: Duration = .seconds(10),
    where predicate: @escaping @Sendable (S.Element) -> Bool
) async throws -> S.Element where S.Element: Sendable {
    try await within(timeout, waitingFor: "an element") {
        for try await element in sequence where predicate(element) { return element }
        return nil
    }
}

/// The first `count` elements of `sequence`; throws ``TimedOut`` after `timeout` (stretched by
/// ``TestTiming/scale``).
package func collect<S: AsyncSequence & Sendable>(_ sequence: S, count: Int, timeout: Duration = .seconds(10)) async throws -> [S.Element] where S.Element: Sendable {
    try await within(timeout, waitingFor: "\(count) elements") {
        var found: [S.Element] = []
        for try await element in sequence {
            found.append(element)
            if found.count == count { return found }
        }
        return nil
    }
}

/// What `body` finds (nil: the sequence it reads ended first) within `timeout`, scaled; throws
/// ``TimedOut`` naming `what` otherwise (`body` is cancelled then).
package func within<T: Sendable>(_ timeout: Duration, waitingFor what: String, _ body: @escaping @Sendable () async throws -> T?) async throws -> T {
    let timeout = TestTiming.scaled(timeout)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            // sleep: the deadline of a wait (raced against `body`), not a wait.
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let found = try await group.next() ?? nil else {
            throw TimedOut(description: "timed out after \(timeout) waiting for \(what)")
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
