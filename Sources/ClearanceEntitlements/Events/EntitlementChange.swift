import Foundation

/// A change in what a provider grants: the state, the products (granted ↔ denied, the issues
/// list changed), or the session ending. Sent when the entitlement changes, never on a poll
/// that found it unchanged, on the provider's ``EntitlementProvider/changes`` and as a
/// `NotificationCenter` post named ``notificationName`` (Pugpig's `KGAuthChangeNotification`)
/// whose `userInfo[EntitlementChange.userInfoKey]` holds it. Carries no secret.
public struct EntitlementChange: Sendable, Hashable, CustomStringConvertible {
    /// The name of the notifications posted for every change.
    public static let notificationName = Notification.Name("ClearanceEntitlementChange")
    /// The `userInfo` key holding the ``EntitlementChange``.
    public static let userInfoKey = "change"

    /// The provider's name.
    public var provider: String
    /// What it granted before (nil: nothing was known).
    public var previous: EntitlementSnapshot?
    /// What it grants now.
    public var current: EntitlementSnapshot

    /// Creates a change.
    public init(provider: String, previous: EntitlementSnapshot?, current: EntitlementSnapshot) {
        self.provider = provider
        self.previous = previous
        self.current = current
    }

    /// True when the session ended with this change.
    public var signedOut: Bool { current.state == .signedOut && previous?.state != .signedOut }

    /// True when the state changed.
    public var stateChanged: Bool { previous?.state != current.state }

    /// True when the granted products changed.
    public var accessChanged: Bool { previous?.access != current.access }

    public var description: String {
        "EntitlementChange(\(provider): \(previous.map { "\($0.state) \($0.access)" } ?? "nothing") → \(current.state) \(current.access))"
    }
}
