/// One `<userinfo><category scheme="…" value="…"/></userinfo>` entry of a Pugpig subscription
/// answer: a fact about the user the app may use (a subscriber tier, a region).
public struct UserInfoCategory: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The category's scheme (a URI or a name).
    public var scheme: String
    /// The category's value.
    public var value: String

    /// Creates a category.
    public init(scheme: String, value: String) {
        self.scheme = scheme
        self.value = value
    }

    public var description: String { "\(scheme)=\(value)" }
}
