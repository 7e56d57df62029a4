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
        let maxLength = maxLength
        let (kind, problem) = channelName.withUTF8Buffer { bytes -> (ChannelNameKind, SigningError?) in
            if bytes.isEmpty { return (.public, .emptyChannelName) }
            let kind = ChannelNameKind.classify(bytes)
            var start = 0
            if kind == .serverToUser {
                start = ChannelNameKind.serverToUserPrefix.utf8.count
                if bytes.count == start { return (kind, .invalidChannelName) }
            }
            for index in start..<bytes.count where !Self.isAllowed(bytes[index]) {
                return (kind, .invalidChannelName)
            }
            // Every accepted byte is ASCII, so the UTF-8 count is the character count.
            if bytes.count > maxLength { return (kind, .channelNameTooLong(length: bytes.count, limit: maxLength)) }
            return (kind, nil)
        }
        if let problem { throw problem }
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

    /// Bit `b` is set for each allowed ASCII byte `b` below 64: `0-9 , - . ; =`.
    private static let allowedBelow64: UInt64 = 0x2BFF_7000_0000_0000
    /// Bit `b - 64` is set for each allowed ASCII byte `b` in 64..<128: `@ A-Z _ a-z`.
    private static let allowedFrom64: UInt64 = 0x07FF_FFFE_87FF_FFFF

    /// Whether `byte` is one of `[A-Za-z0-9_\-=@,.;]`, by bitmask lookup.
    @inline(__always)
    static func isAllowed(_ byte: UInt8) -> Bool {
        if byte < 64 { return (allowedBelow64 >> byte) & 1 == 1 }
        if byte < 128 { return (allowedFrom64 >> (byte &- 64)) & 1 == 1 }
        return false
    }
}
