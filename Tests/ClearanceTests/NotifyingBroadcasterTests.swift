@testable import Clearance
import ClearanceTestSupport
import Foundation
import Testing

/// Events describe changes of their owner's state: they must reach subscribers in the order the
/// changes were made, even when the changes are made on many threads at once.
@Suite("NotifyingBroadcaster")
struct NotifyingBroadcasterTests {
    /// Eight threads each take a lock, make the next change and enqueue its event, then flush
    /// outside the lock: the stream and the notification center see 1, 2, 3, … in order. (Posting
    /// after the lock, as before, let a later change be announced first: CustomerTokenSource's
    /// "received" before the "rejected" that caused it.)
    @Test func eventsEnqueuedUnderTheChangesLockArriveInTheChangesOrder() async throws {
        let center = NotificationCenter()
        let name = Notification.Name("NotifyingBroadcasterTests.order")
        let broadcaster = NotifyingBroadcaster<Int>(name: name, key: "value", notificationCenter: center)
        let notified = Locked<[Int]>([])
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { note in
            if let value = note.userInfo?["value"] as? Int { notified.withLock { $0.append(value) } }
        }
        defer { center.removeObserver(observer) }
        let stream = broadcaster.subscribe()
        let changes = 8 * 200
        let reader = Task {
            var seen: [Int] = []
            for await value in stream {
                if value < 0 { break }  // the end, posted last
                seen.append(value)
            }
            return seen
        }
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                counter.withLock { value in
                    value += 1
                    broadcaster.enqueue(value)
                }
                broadcaster.flush()
            }
        }
        #expect(notified.withLock { $0 } == Array(1...changes))
        broadcaster.post(-1)
        let seen = await reader.value
        // The stream keeps the newest 256 when its reader falls behind: what arrived is in order.
        #expect(!seen.isEmpty && seen == seen.sorted() && Set(seen).count == seen.count)
    }

    /// An observer that posts while an event is being posted (a callback into its owner) neither
    /// deadlocks nor jumps the queue: its event follows the one it reacted to.
    @Test func anObserverThatPostsIsServedAfterTheEventItAnswers() {
        let center = NotificationCenter()
        let name = Notification.Name("NotifyingBroadcasterTests.reentrant")
        let broadcaster = NotifyingBroadcaster<String>(name: name, key: "value", notificationCenter: center)
        let notified = Locked<[String]>([])
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { note in
            guard let value = note.userInfo?["value"] as? String else { return }
            notified.withLock { $0.append(value) }
            if value == "first" { broadcaster.post("answer") }
        }
        defer { center.removeObserver(observer) }
        broadcaster.enqueue("first")
        broadcaster.enqueue("second")
        broadcaster.flush()
        #expect(notified.withLock { $0 } == ["first", "second", "answer"])
    }
}
