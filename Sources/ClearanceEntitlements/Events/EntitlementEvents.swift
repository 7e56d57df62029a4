import Clearance
import Foundation

/// Publishes ``EntitlementChange``s as an `AsyncSequence` and as `NotificationCenter` posts named
/// ``notificationName`` (Pugpig's `KGAuthChangeNotification`) whose
/// `userInfo[EntitlementEvents.changeKey]` holds the change.
public final class EntitlementEvents: Sendable {
    /// The name of the notifications posted for every change.
    public static let notificationName = Notification.Name("ClearanceEntitlementChange")
    /// The `userInfo` key holding the ``EntitlementChange``.
    public static let changeKey = "change"

    private let broadcaster = Broadcaster<EntitlementChange>()
    private let notificationCenter: NotificationCenter?

    /// - Parameter notificationCenter: Where to post notifications; `nil` posts none.
    public init(notificationCenter: NotificationCenter? = .default) {
        self.notificationCenter = notificationCenter
    }

    /// Every change posted from now on.
    public var changes: AsyncStream<EntitlementChange> { broadcaster.subscribe() }

    /// Posts `change` to every stream and to the notification center.
    public func post(_ change: EntitlementChange) {
        broadcaster.send(change)
        notificationCenter?.post(name: Self.notificationName, object: nil, userInfo: [Self.changeKey: change])
    }
}
