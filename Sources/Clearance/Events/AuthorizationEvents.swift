import Foundation

/// Publishes ``AuthorizationEvent``s as an `AsyncSequence` and, for apps that prefer it
/// (PodioKit's style), as `NotificationCenter` posts named ``notificationName`` whose
/// `userInfo[AuthorizationEvents.eventKey]` holds the event.
public final class AuthorizationEvents: Sendable {
    /// The name of the notifications posted for every event.
    public static let notificationName = Notification.Name("ClearanceAuthorizationEvent")
    /// The `userInfo` key holding the ``AuthorizationEvent``.
    public static let eventKey = "event"

    private let publisher: NotifyingBroadcaster<AuthorizationEvent>

    /// - Parameter notificationCenter: Where to post notifications; `nil` posts none.
    public init(notificationCenter: NotificationCenter? = .default) {
        publisher = NotifyingBroadcaster(name: Self.notificationName, key: Self.eventKey, notificationCenter: notificationCenter)
    }

    /// Every event posted from now on.
    public var events: AsyncStream<AuthorizationEvent> { publisher.subscribe() }

    /// Posts `event` to every stream and to the notification center.
    public func post(_ event: AuthorizationEvent) { publisher.post(event) }
}
