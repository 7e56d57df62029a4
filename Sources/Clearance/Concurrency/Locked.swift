#if canImport(Darwin)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock: the one lock type in Clearance.
///
/// Synchronization's `Mutex` would do, but it needs macOS 15 and iOS 18; this keeps the floor at
/// macOS 14 and iOS 17. `os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere, each
/// allocated once so its address never moves. ``withLock(_:)`` takes a synchronous closure, so the
/// lock can never be held across an `await`.
///
/// The state must not be empty (`Void`): Swift's exclusivity checks give a zero-sized stored
/// property an address that is not its own (the end of the object, where the next heap block
/// may begin), and ThreadSanitizer then reports accesses to unrelated memory as races.
package final class Locked<State>: @unchecked Sendable {
    private var state: State
    #if canImport(Darwin)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    /// A lock guarding `initial`.
    package init(_ initial: State) {
        precondition(MemoryLayout<State>.size > 0, "Locked needs a state that is not empty; guard a counter instead of Void")
        state = initial
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&state)
    }
}
