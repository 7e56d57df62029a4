import ClearanceWire

/// The parts of a presence channel's `channel_data` that the protocol gives meaning to.
///
/// `channel_data` must be a JSON object whose `user_id` is a non-empty string or a number, at
/// most ``maxUserIDLength`` characters (UTF-16 code units, as JavaScript counts them). A
/// duplicated `user_id` member is rejected as ambiguous. Other members are allowed and ignored.
public struct PresenceChannelData: Sendable, Hashable {
    /// The longest accepted `user_id`.
    public static let maxUserIDLength = 128

    /// The member's id: the decoded string, or a number's JSON text (such as `10` or `1.5e3`).
    public let userID: String
    /// Whether `user_id` was a JSON number rather than a string.
    public let userIDIsNumber: Bool
    /// The raw JSON text of `user_info`, exactly as it appears in `channel_data`, when present.
    public let userInfoJSON: String?

    /// The member this `channel_data` makes its subscriber.
    public var member: PresenceMember { PresenceMember(id: userID, infoJSON: userInfoJSON) }

    /// Parses and validates `channelData`.
    ///
    /// - Throws: ``SigningError/invalidChannelData`` when it is not a well-formed JSON object,
    ///   ``SigningError/invalidPresenceUserID`` when `user_id` is missing or unusable.
    public init(parsing channelData: String) throws(SigningError) {
        let parsed: Result<(String, Bool, String?), SigningError> = channelData.withUTF8Buffer { bytes in
            guard let lookups = JSONScanner.scanObject(bytes, keys: ["user_id", "user_info"]) else {
                return .failure(.invalidChannelData)
            }
            let userIDLookup = lookups[0]
            guard userIDLookup.occurrences == 1, let member = userIDLookup.member else {
                return .failure(.invalidPresenceUserID)
            }
            let userID: String
            let isNumber: Bool
            switch member.kind {
            case .string:
                guard let decoded = JSONScanner.decodeString(bytes, range: member.range) else {
                    return .failure(.invalidPresenceUserID)
                }
                userID = String(decoding: decoded, as: UTF8.self)
                isNumber = false
            case .number:
                userID = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[member.range]), as: UTF8.self)
                isNumber = true
            default:
                return .failure(.invalidPresenceUserID)
            }
            guard !userID.isEmpty, userID.utf16.count <= Self.maxUserIDLength else {
                return .failure(.invalidPresenceUserID)
            }
            let userInfo = lookups[1].member.map {
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0.range]), as: UTF8.self)
            }
            return .success((userID, isNumber, userInfo))
        }
        switch parsed {
        case let .success((userID, isNumber, userInfo)):
            self.userID = userID
            self.userIDIsNumber = isNumber
            self.userInfoJSON = userInfo
        case let .failure(error):
            throw error
        }
    }
}
