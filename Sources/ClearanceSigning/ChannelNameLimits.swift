/// The rules a channel name must satisfy, with a configurable length limit.
///
/// A valid name is non-empty, at most ``maxLength`` characters, and made of
/// `[A-Za-z0-9_\-=@,.;]`. The one exception is `#`: it is accepted only as part of a leading
/// `#server-to-user-` (followed by at least one allowed character), because those channels exist
/// in the protocol and a hub must be able to name them. ``ChannelAuthSigner`` still refuses to
/// authorize them (they are joined through user sign-in), matching the official libraries.
public struct ChannelNameLimits: Sendable, Hashable {
    /// The longest accepted channel name, in characters (all allowed characters are ASCII).
    /// A value below 1 rejects every name.
    public var maxLength: Int

    /// Creates limits with the given maximum length.
    public init(maxLength: Int = 200) {
        self.maxLength = maxLength
    }

    /// 200 characters: what the official server libraries accept.
    public static let `default` = ChannelNameLimits(maxLength: 200)

    /// 164 characters: hosted Pusher's limit.
    public static let hosted = ChannelNameLimits(maxLength: 164)

    /// Checks `channelName` and returns its kind.
    ///
    /// - Throws: ``SigningError/emptyChannelName``, ``SigningError/invalidChannelName`` or
    ///   ``SigningError/channelNameTooLong(length:limit:)``.
    @discardableResult
    public func validate(_ channelName: String) throws(SigningError) -> ChannelNameKind {
        let utf8 = channelName.utf8
        if utf8.isEmpty { throw .emptyChannelName }
        let kind = ChannelNameKind(channelName: channelName)
        var body = Substring(channelName).utf8
        if kind == .serverToUser {
            body = body.dropFirst(ChannelNameKind.serverToUserPrefix.utf8.count)
            if body.isEmpty { throw .invalidChannelName }
        }
        for byte in body where !Self.isAllowed(byte) {
            throw .invalidChannelName
        }
        // Every accepted byte is ASCII, so the UTF-8 count is the character count.
        let length = utf8.count
        if length > maxLength { throw .channelNameTooLong(length: length, limit: maxLength) }
        return kind
    }

    /// Whether `channelName` passes ``validate(_:)``.
    public func isValid(_ channelName: String) -> Bool {
        do {
            try validate(channelName)
            return true
        } catch {
            return false
        }
    }

    @inline(__always)
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "="), UInt8(ascii: "@"),
             UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: ";"):
            true
        default:
            false
        }
    }
}
