import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation

/// The raw-protocol side of the shared ``TestHub``: WebSocket frames as a client writes them.
extension TestHub {
    /// Connects and waits for `pusher:connection_established`; returns the client and its socket id.
    static func connect(
        _ hub: HubServer,
        key: String? = nil,
        protocolVersion: Int = 7
    ) async throws -> (client: TestWebSocketClient, socketID: String) {
        try await connect(hub.endpoint, key: key, protocolVersion: protocolVersion)
    }

    /// Connects to `hub` and waits for `pusher:connection_established`.
    static func connect(
        _ hub: HubEndpoint,
        key: String? = nil,
        protocolVersion: Int = 7
    ) async throws -> (client: TestWebSocketClient, socketID: String) {
        let client = try TestWebSocketClient(url: hub.webSocketURL(forKey: key, protocolVersion: protocolVersion))
        let established = try await client.next(event: "pusher:connection_established")
        guard let socketID = established.dataObject["socket_id"] as? String else {
            throw TestWebSocketClient.Failure(description: "no socket_id in \(established)")
        }
        return (client, socketID)
    }

    /// `pusher:subscribe` for `channel`, signed with the test secret unless `auth` is given.
    static func subscribeFrame(channel: String, socketID: String, channelData: String? = nil, auth: String? = nil) -> String {
        var data: [String: String] = ["channel": channel]
        let kind = ChannelNameKind(channelName: channel)
        if let auth {
            data["auth"] = auth
        } else if kind.requiresAuthorization {
            data["auth"] = try! signer.authorizeChannel(socketID: socketID, channelName: channel, channelData: channelData).auth
        }
        if let channelData { data["channel_data"] = channelData }
        return frame(event: "pusher:subscribe", data: data)
    }

    /// Subscribes and waits for success.
    @discardableResult
    static func subscribe(
        _ client: TestWebSocketClient,
        socketID: String,
        channel: String,
        channelData: String? = nil
    ) async throws -> ReceivedFrame {
        client.send(subscribeFrame(channel: channel, socketID: socketID, channelData: channelData))
        return try await client.next(event: "pusher_internal:subscription_succeeded", channel: channel)
    }

    static func frame(event: String, channel: String? = nil, data: Any) -> String {
        var object: [String: Any] = ["event": event, "data": data]
        if let channel { object["channel"] = channel }
        let bytes = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: bytes, as: UTF8.self)
    }

    static func presenceData(_ userID: String, info: String? = nil) -> String {
        info.map { #"{"user_id":"\#(userID)","user_info":\#($0)}"# } ?? #"{"user_id":"\#(userID)"}"#
    }
}
