/// Which channels a webhook target hears about: those whose name starts with ``channelPrefix``
/// and ends with ``channelSuffix`` (each `nil` for any).
public struct WebhookChannelFilter: Sendable, Hashable, Codable {
    /// The prefix a channel's name must have, if any.
    public var channelPrefix: String?
    /// The suffix a channel's name must have, if any.
    public var channelSuffix: String?

    /// Creates a filter; the default lets every channel through.
    public init(channelPrefix: String? = nil, channelSuffix: String? = nil) {
        self.channelPrefix = channelPrefix
        self.channelSuffix = channelSuffix
    }

    /// Whether events of `channel` pass.
    public func admits(_ channel: String) -> Bool {
        (channelPrefix.map(channel.hasPrefix) ?? true) && (channelSuffix.map(channel.hasSuffix) ?? true)
    }

    /// Decodes `{"channelPrefix": …, "channelSuffix": …}`, both optional.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for another
    ///   member, or a decoding error.
    public init(from decoder: any Decoder) throws {
        self = try ConfigurationMember.decode(Self.members, from: decoder, startingFrom: Self())
    }

    /// The members of a `filter` object, both optional.
    private static let members: [ConfigurationMember<Self>] = [.optional("channelPrefix", \.channelPrefix), .optional("channelSuffix", \.channelSuffix)]
}
