import ClearanceOAuth2
import ClearanceWire
import Foundation

/// The provider's UserInfo answer (OpenID Connect Core §5.3), checked: a JSON object whose
/// `sub` is the ID token's.
public struct UserInfo: Sendable, Hashable {
    /// Every claim of the answer.
    public let claims: [String: JSONValue]

    init(claims: [String: JSONValue]) {
        self.claims = claims
    }

    /// `sub`: the same subject as the session's ID token.
    public var subject: String { claims["sub"]?.stringValue ?? "" }
    /// `email`, when given.
    public var email: String? { claims["email"]?.stringValue }
    /// `name`, when given.
    public var name: String? { claims["name"]?.stringValue }
    /// The answer as one line of compact JSON, keys sorted.
    public var jsonText: String { JSONValue.object(claims).jsonText }
}

extension UserInfo: CustomStringConvertible {
    public var description: String { "UserInfo(subject: \(subject), claims: \(claims.keys.sorted().joined(separator: " ")))" }
}
