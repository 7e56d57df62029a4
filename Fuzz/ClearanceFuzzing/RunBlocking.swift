import Foundation

/// Runs `body` to completion from synchronous code (the fuzzer's thread, or the replay test's
/// own thread: never a thread of Swift's cooperative pool).
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = BlockingBox<T>()
    Task {
        box.value = await body()
        box.done.signal()
    }
    box.done.wait()
    guard let value = box.value else { preconditionFailure("runBlocking: the task finished without a value") }
    return value
}

/// The value handed from the task to the waiting thread; the semaphore orders the accesses.
private final class BlockingBox<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}
