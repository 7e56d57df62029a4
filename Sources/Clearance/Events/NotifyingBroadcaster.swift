import Foundation

/// An event ``Broadcaster`` that also posts each event to a `NotificationCenter` under one name,
/// the event in `userInfo[key]`: what every public events type (``AuthorizationEvents``, the
/// entitlement changes) is made of.
///
/// Events are posted in the order they were decided. A caller whose event describes a change of
/// its own state ("the token was dropped") ``enqueue(_:)``s it under the lock that makes the
/// change, then calls ``flush()`` once the lock is released: no other caller can make a later
/// change and post its event first, and nothing is posted under the caller's lock (a
/// notification observer may call back into it). ``post(_:)`` is both at once. While one thread
/// posts, events enqueued by others are posted by it, after its own, in their order.
package final class NotifyingBroadcaster<Event: Sendable>: Sendable {
    private struct Queue {
        var events: [Event] = []
        var posting = false
    }

    private let broadcaster = Broadcaster<Event>()
    private let notificationCenter: NotificationCenter?
    private let name: Notification.Name
    private let key: String
    private let queue = Locked(Queue())

    /// Posts to `notificationCenter` (none when nil) as `name`, the event under `key`.
    package init(name: Notification.Name, key: String, notificationCenter: NotificationCenter?) {
        self.name = name
        self.key = key
        self.notificationCenter = notificationCenter
    }

    /// Every event posted from now on.
    package func subscribe() -> AsyncStream<Event> { broadcaster.subscribe() }

    /// Sends `event` to every stream and to the notification center, after the events enqueued
    /// before it.
    package func post(_ event: Event) {
        enqueue(event)
        flush()
    }

    /// Takes `event` in its place in the order, without posting it: call it under the lock that
    /// decides the change it describes, then ``flush()`` outside that lock.
    package func enqueue(_ event: Event) {
        queue.withLock { $0.events.append(event) }
    }

    /// Posts every enqueued event in order, unless another thread is posting (which then posts
    /// them too).
    package func flush() {
        while let batch = queue.withLock({ queue -> [Event]? in
            guard !queue.posting, !queue.events.isEmpty else { return nil }
            queue.posting = true
            defer { queue.events = [] }
            return queue.events
        }) {
            for event in batch {
                broadcaster.send(event)
                notificationCenter?.post(name: name, object: nil, userInfo: [key: event])
            }
            queue.withLock { $0.posting = false }
        }
    }
}
