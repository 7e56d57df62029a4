import Foundation

/// One member of a presence channel: its `user_id` and `user_info`, as the client lists members
/// and the hub keeps them (``PresenceChannelData/member`` reads one from `channel_data`).
public struct PresenceMember: Sendable, Hashable, Identifiable {
    /// The member's user id (numbers are kept as their JSON text).
    public let id: String
    /// The member's `user_info` as JSON text, exactly as signed, if any.
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
