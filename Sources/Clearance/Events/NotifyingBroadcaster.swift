import Foundation

/// An event ``Broadcaster`` that also posts each event to a `NotificationCenter` under one name,
/// the event in `userInfo[key]`: what every public events type (``AuthorizationEvents``, the
/// entitlement changes) is made of.
package final class NotifyingBroadcaster<Event: Sendable>: Sendable {
    private let broadcaster = Broadcaster<Event>()
    private let notificationCenter: NotificationCenter?
    private let name: Notification.Name
    private let key: String

    /// Posts to `notificationCenter` (none when nil) as `name`, the event under `key`.
    package init(name: Notification.Name, key: String, notificationCenter: NotificationCenter?) {
        self.name = name
        self.key = key
        self.notificationCenter = notificationCenter
    }

    /// Every event posted from now on.
    package func subscribe() -> AsyncStream<Event> { broadcaster.subscribe() }

    /// Sends `event` to every stream and to the notification center.
    package func post(_ event: Event) {
        broadcaster.send(event)
        notificationCenter?.post(name: name, object: nil, userInfo: [key: event])
    }
}
