import ClearanceWire

/// The parts of user sign-in `user_data` that the protocol gives meaning to.
///
/// `user_data` must be a JSON object whose `id` is a non-empty string (a duplicated `id` member
/// is rejected as ambiguous). Other members (`user_info`, `watchlist`, …) are allowed and kept
/// only in the original text, which is what gets signed.
///
/// The official Python library additionally restricts the id to channel-name characters (so
/// that `#server-to-user-<id>` is a valid channel name); this type does not, but
/// ``serverToUserChannelName`` tells you the resulting channel name, which you can check with
/// ``ChannelNameLimits/validate(_:)``.
public struct PusherUserData: Sendable, Hashable {
    /// The user's id, decoded from its JSON string.
    public let id: String

    /// `#server-to-user-<id>`: the channel the user is subscribed to after signing in.
    public var serverToUserChannelName: String { ChannelNameKind.serverToUserPrefix + id }

    /// Parses and validates `userData`.
    ///
    /// - Throws: ``SigningError/invalidUserData`` when it is not a well-formed JSON object,
    ///   ``SigningError/invalidUserDataID`` when `id` is missing, not a string, or empty.
    public init(parsing userData: String) throws(SigningError) {
        let parsed: Result<String, SigningError> = userData.withUTF8Buffer { bytes in
            guard let lookups = JSONScanner.scanObject(bytes, keys: ["id"]) else {
                return .failure(.invalidUserData)
            }
            guard lookups[0].occurrences == 1, let member = lookups[0].member, member.kind == .string,
                  let decoded = JSONScanner.decodeString(bytes, range: member.range),
                  !decoded.isEmpty
            else {
                return .failure(.invalidUserDataID)
            }
            return .success(String(decoding: decoded, as: UTF8.self))
        }
        id = try parsed.get()
    }
}
