import ClearanceWire
import ClearanceSigning

extension ChannelClient {
    /// The largest client event payload: 10 KB.
    static let maximumClientEventBytes = 10 * 1024

    /// Sends a client event on `channel` after checking the protocol's rules.
    func trigger(_ event: String, on channel: PusherChannel, json: String) async throws(ChannelError) {
        guard event.hasPrefix("client-") else { throw .clientEventRejected(.invalidName) }
        guard !channel.kind.isEncrypted else { throw .clientEventRejected(.encryptedChannel) }
        guard channel.kind.allowsClientEvents else { throw .clientEventRejected(.channelKindNotAllowed) }
        guard let live = socket, live.established else { throw .clientEventRejected(.notConnected) }
        guard records[channel.name]?.channel === channel, channel.state.isSubscribed else {
            throw .clientEventRejected(.notSubscribed)
        }
        guard JSONValue(parsing: json) != nil else { throw .clientEventRejected(.unencodableData) }
        guard json.utf8.count <= Self.maximumClientEventBytes else { throw .clientEventRejected(.dataTooLarge) }
        guard rateLimiter.allow(at: .now) else { throw .clientEventRejected(.rateLimited) }
        await send(OutgoingFrame.clientEvent(event, channel: channel.name, dataJSON: json), on: live.token)
    }
}
