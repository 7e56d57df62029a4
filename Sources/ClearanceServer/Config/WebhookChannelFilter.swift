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

    /// The members of a `filter` object.
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case channelPrefix, channelSuffix
    }

    /// Decodes `{"channelPrefix": …, "channelSuffix": …}`, both optional.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for another
    ///   member, or a decoding error.
    public init(from decoder: any Decoder) throws {
        try ConfigurationMembers(CodingKeys.self).check(decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        channelPrefix = try container.decodeIfPresent(String.self, forKey: .channelPrefix)
        channelSuffix = try container.decodeIfPresent(String.self, forKey: .channelSuffix)
    }

    /// Whether events of `channel` pass.
    public func admits(_ channel: String) -> Bool {
        (channelPrefix.map(channel.hasPrefix) ?? true) && (channelSuffix.map(channel.hasSuffix) ?? true)
    }
}
