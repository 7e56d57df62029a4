import Clearance
import ClearanceServer
import ClearanceWire

/// A development user of the hub's auth endpoints (``DevelopmentUserDirectory``): whoever presents ``token`` (as a Bearer token,
/// the `clearance_token` cookie, or the password of HTTP Basic) is this user.
///
/// For development and tests only. `description` never shows the token.
public struct DevelopmentUser: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The secret that identifies the user.
    public var token: String
    /// The user id: presence `user_id` and sign-in `id`.
    public var id: String
    /// Presence `user_info` and sign-in `user_info`, if any (a JSON object is usual).
    public var info: JSONValue?
    /// What the user may read from the development Pugpig endpoints (user name: ``id``,
    /// password: ``token``); none given means a lapsed subscription.
    public var entitlements: DevelopmentEntitlement?

    /// Creates a user.
    public init(token: String, id: String, info: JSONValue? = nil, entitlements: DevelopmentEntitlement? = nil) {
        self.token = token
        self.id = id
        self.info = info
        self.entitlements = entitlements
    }

    /// The members of a user object.
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case token, id, info, entitlements
    }

    /// Decodes a user: `token` and `id`, and optionally `info` and `entitlements`.
    /// - Throws: `HubConfigurationError.unknownMember` for another member, or a decoding error.
    public init(from decoder: any Decoder) throws {
        try ConfigurationMembers(CodingKeys.self).check(decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        token = try container.decode(String.self, forKey: .token)
        id = try container.decode(String.self, forKey: .id)
        info = try container.decodeIfPresent(JSONValue.self, forKey: .info)
        entitlements = try container.decodeIfPresent(DevelopmentEntitlement.self, forKey: .entitlements)
    }

    /// `DevelopmentUser(id: …, token: <redacted>)`.
    public var description: String { "DevelopmentUser(id: \(id), token: \(Redactor.mask))" }
}
