import Foundation

/// A snapshot and how current it is: what a provider serves when asked for access, and what
/// `clearance entitlements status` prints.
public struct EntitlementStatus: Sendable, Hashable, CustomStringConvertible {
    /// How current a snapshot is.
    public enum Freshness: Sendable, Hashable, CustomStringConvertible {
        /// Fetched within the verification interval (or just now).
        case fresh
        /// Older than the verification interval and not verified again (no network was asked:
        /// `status` only reads the store).
        case due
        /// The service could not be reached; the snapshot serves until `graceEndsAt`.
        case offline(graceEndsAt: Date)
        /// The service could not be reached and the offline grace is over: nothing is granted.
        case graceExpired

        public var description: String {
            switch self {
            case .fresh: "fresh"
            case .due: "due"
            case .offline(let end): "offline (grace until \(end.formatted(.iso8601)))"
            case .graceExpired: "offline (grace expired)"
            }
        }
    }

    /// The snapshot served.
    public var snapshot: EntitlementSnapshot
    /// How current it is.
    public var freshness: Freshness

    /// Creates a status.
    public init(snapshot: EntitlementSnapshot, freshness: Freshness) {
        self.snapshot = snapshot
        self.freshness = freshness
    }

    /// True when `product` is granted now: never once the offline grace is over.
    public func grants(_ product: String) -> Bool {
        freshness != .graceExpired && snapshot.grants(product)
    }

    /// True when served offline from the last snapshot (whether or not the grace is over).
    public var isOffline: Bool {
        switch freshness {
        case .offline, .graceExpired: true
        case .fresh, .due: false
        }
    }

    public var description: String { "EntitlementStatus(\(snapshot), \(freshness))" }
}
