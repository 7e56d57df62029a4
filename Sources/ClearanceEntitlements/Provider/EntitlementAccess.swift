/// A provider's answer to "may the user read this product?" (Pugpig's
/// `hasPurchasedProductIdentifier`, with a third answer for products that are not the
/// provider's to decide).
public enum EntitlementAccess: Sendable, Hashable, CustomStringConvertible {
    /// The user may read it.
    case granted
    /// The product is this provider's and the user may not read it.
    case denied
    /// Not this provider's product (or the provider has no session): ask the next one.
    case notClaimed

    /// True for ``granted``.
    public var isGranted: Bool { self == .granted }

    public var description: String {
        switch self {
        case .granted: "granted"
        case .denied: "denied"
        case .notClaimed: "notClaimed"
        }
    }
}
