import Foundation

/// What a provider last learned about a user's entitlements: the subscription state, the
/// products it grants, the service's message, and when it was fetched. Carries no secret.
///
/// ``access`` is the *effective* access: an active subscription grants what the service listed
/// (every product when it listed none); a lapsed one keeps only the issues listed; a suspended,
/// unknown or signed-out one grants nothing.
public struct EntitlementSnapshot: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The subscription state.
    public var state: SubscriptionState
    /// The products granted.
    public var access: ProductAccess
    /// The service's message for the user ("Your subscription renews on …"), if any.
    public var message: String?
    /// The `<userinfo>` categories, if any.
    public var categories: [UserInfoCategory]
    /// When the service answered.
    public var fetchedAt: Date

    /// Creates a snapshot.
    public init(state: SubscriptionState, access: ProductAccess, message: String? = nil, categories: [UserInfoCategory] = [], fetchedAt: Date) {
        self.state = state
        self.access = access
        self.message = message
        self.categories = categories
        self.fetchedAt = fetchedAt
    }

    /// The snapshot of no session.
    public static func signedOut(at date: Date) -> EntitlementSnapshot {
        EntitlementSnapshot(state: .signedOut, access: .none, fetchedAt: date)
    }

    /// The effective access for a subscription `state` whose answer listed `issues` (nil: no `<issues>` element).
    public static func effectiveAccess(state: SubscriptionState, issues: [String]?) -> ProductAccess {
        switch state {
        case .active: issues.map { .products(Set($0)) } ?? .all
        case .inactive: .products(Set(issues ?? []))
        case .unknown, .stale, .suspended, .signedOut: .none
        }
    }

    /// True when `product` is granted.
    public func grants(_ product: String) -> Bool { access.contains(product) }

    /// True when the state or the access differ (the message and the time do not count: a
    /// change event is sent on these only).
    public func differsInEntitlement(from other: EntitlementSnapshot?) -> Bool {
        guard let other else { return true }
        return state != other.state || access != other.access
    }

    public var description: String {
        "EntitlementSnapshot(\(state), access: \(access), fetchedAt: \(fetchedAt.formatted(.iso8601)))"
    }
}
