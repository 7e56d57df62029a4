import Clearance

/// Why a ``CustomerTokenSource`` has no token: the `underlying` error of its
/// ``AuthorizationError/missingCredential(source:underlying:)``.
public enum CustomerTokenMissing: ClearanceError, Equatable {
    /// No customer is identified (anonymous): no token is asked for.
    case anonymous
    /// The provider returned nil or an empty token.
    case notProvided

    /// Stable codes; ``qualifiedCode`` is `bloomreach.customer_token.<code>`.
    public enum Code: String, Sendable, CaseIterable { case anonymous, notProvided }

    public static let codeDomain = "bloomreach.customer_token"

    public var code: Code {
        switch self {
        case .anonymous: .anonymous
        case .notProvided: .notProvided
        }
    }

    public var message: String {
        switch self {
        case .anonymous: "No customer is identified, so there is no customer token to send (call identify first)."
        case .notProvided: "The customer-token provider returned no token."
        }
    }
}
