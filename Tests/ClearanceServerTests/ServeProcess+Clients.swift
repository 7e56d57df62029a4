import ClearanceTestSupport
import Foundation

extension ServeProcess {
    /// A WebSocket client of the test app, once the hub said `pusher:connection_established`.
    func connectedClient(key: String = TestHub.key) async throws -> TestWebSocketClient {
        let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(port)/app/\(key)?protocol=7")!)
        _ = try await client.next(event: "pusher:connection_established")
        return client
    }

    /// `client` subscribes to the public `channel`; then an event triggered there through the
    /// HTTP API reaches it (the hub's whole path: subscribe, trigger, deliver).
    func subscribeAndReceive(_ client: TestWebSocketClient, channel: String, event: String, data: String) async throws -> Bool {
        client.send(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#)
        _ = try await client.next(event: "pusher_internal:subscription_succeeded")
        try await TestHub.trigger(http, event: event, channels: [channel], data: data)
        return try await client.next(event: event).rawData as? String == data
    }
}
