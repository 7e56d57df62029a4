/// The kind of a Pusher channel, decided by its name prefix.
///
/// Classification looks only at the prefix; it does not validate the rest of the name (use
/// ``ChannelNameLimits/validate(_:)`` for that).
public enum ChannelNameKind: String, Sendable, Hashable, CaseIterable {
    /// Any name without one of the prefixes below. Needs no authorization.
    case `public`
    /// `private-…` (but not `private-encrypted-…`).
    case `private`
    /// `presence-…`: authorized with `channel_data` naming the member.
    case presence
    /// `private-encrypted-…`: authorized like private, plus a `shared_secret` for end-to-end encryption.
    case privateEncrypted
    /// `#server-to-user-<user id>`: joined implicitly after user sign-in.
    case serverToUser

    /// The `private-` prefix.
    public static let privatePrefix = "private-"
    /// The `presence-` prefix.
    public static let presencePrefix = "presence-"
    /// The `private-encrypted-` prefix.
    public static let privateEncryptedPrefix = "private-encrypted-"
    /// The `#server-to-user-` prefix.
    public static let serverToUserPrefix = "#server-to-user-"

    /// Classifies `channelName` by its prefix.
    public init(channelName: String) {
        self = channelName.withUTF8Buffer { Self.classify($0) }
    }

    /// Classifies UTF-8 channel name bytes by their prefix.
    @inline(__always)
    static func classify(_ bytes: UnsafeRawBufferPointer) -> ChannelNameKind {
        if hasPrefix(bytes, "private-") {
            return hasPrefix(bytes, "private-encrypted-") ? .privateEncrypted : .private
        }
        if hasPrefix(bytes, "presence-") { return .presence }
        if hasPrefix(bytes, "#server-to-user-") { return .serverToUser }
        return .public
    }

    @inline(__always)
    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let start = prefix.utf8Start
        for index in 0..<count where bytes[index] != start[index] {
            return false
        }
        return true
    }

    /// Whether subscribing needs an `auth` signature (private, presence and encrypted channels).
    public var requiresAuthorization: Bool {
        switch self {
        case .private, .presence, .privateEncrypted: true
        case .public, .serverToUser: false
        }
    }

    /// Whether the authorization must carry `channel_data` (presence channels only).
    public var requiresChannelData: Bool { self == .presence }

    /// Whether clients may trigger `client-` events on it (private and presence channels only;
    /// never on encrypted channels).
    public var allowsClientEvents: Bool {
        switch self {
        case .private, .presence: true
        case .public, .privateEncrypted, .serverToUser: false
        }
    }

    /// Whether event payloads are end-to-end encrypted (NaCl secretbox).
    public var isEncrypted: Bool { self == .privateEncrypted }
}
