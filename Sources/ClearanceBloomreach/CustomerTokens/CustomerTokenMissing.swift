import Clearance

/// Why a ``CustomerTokenSource`` has no token: the `underlying` error of its
/// `AuthorizationError.missingCredential`.
public enum CustomerTokenMissing: ClearanceError, Equatable {
    /// No customer is identified (anonymous): no token is asked for.
    case anonymous
    /// The provider returned nil or an empty token.
    case notProvided

    public static let codeDomain = "bloomreach.customer_token"

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .anonymous: .init(.anonymous, "No customer is identified, so there is no customer token to send (call identify first).")
        case .notProvided: .init(.notProvided, "The customer-token provider returned no token.")
        }
    }

    /// Stable codes; ``qualifiedCode`` is `bloomreach.customer_token.<code>`.
    public enum Code: String, Sendable, CaseIterable { case anonymous, notProvided }
}
