import Foundation

/// The answer of `verify_subscription`: `<subscription state="…" message="…">` with optional
/// `<userinfo>` categories and an optional `<issues>` list, or `<error …/>`.
package enum PugpigSubscriptionAnswer: Sendable, Equatable {
    case subscription(state: SubscriptionState, message: String?, categories: [UserInfoCategory], issues: [String]?)
    case error(PugpigErrorElement)

    /// Reads the answer; nil when it is neither form.
    package init?(_ root: PugpigXMLElement) {
        switch root.name {
        case "subscription":
            let state = SubscriptionState(pugpig: root.attributes["state"] ?? "")
            let message = root.attributes["message"].flatMap { $0.isEmpty ? nil : $0 }
            let categories = root.child("userinfo")?.children("category").compactMap { category -> UserInfoCategory? in
                guard let scheme = category.attributes["scheme"], let value = category.attributes["value"] else { return nil }
                return UserInfoCategory(scheme: scheme, value: value)
            } ?? []
            let issues = root.child("issues").map { list in list.children("issue").map(\.trimmedText).filter { !$0.isEmpty } }
            self = .subscription(state: state, message: message, categories: categories, issues: issues)
        case "error":
            self = .error(PugpigErrorElement(root))
        default:
            return nil
        }
    }

    /// The snapshot this answer gives at `date` (nil for an error).
    package func snapshot(at date: Date) -> EntitlementSnapshot? {
        guard case .subscription(let state, let message, let categories, let issues) = self else { return nil }
        return EntitlementSnapshot(
            state: state, access: EntitlementSnapshot.effectiveAccess(state: state, issues: issues),
            message: message, categories: categories, fetchedAt: date)
    }
}
