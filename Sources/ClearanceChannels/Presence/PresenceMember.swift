import Foundation

/// One member of a presence channel: the `user_id` and the `user_info` the server gave.
public struct PresenceMember: Sendable, Hashable, Identifiable {
    /// The member's user id (numbers are kept as their JSON text).
    public let id: String
    /// The member's `user_info` as JSON text, if any.
    public let infoJSON: String?

    /// Creates a member.
    public init(id: String, infoJSON: String? = nil) {
        self.id = id
        self.infoJSON = infoJSON
    }

    /// Decodes `user_info` into `T`.
    public func decodeInfo<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: Data((infoJSON ?? "null").utf8))
    }
}
