import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` with a hub-wide subscription limit: the product of `maxConnections` and
/// `maxChannelsPerConnection` (10 million by default) no longer bounds the hub's memory alone.
@Suite("clearance serve and its subscription limit", .timeLimit(.minutes(2)))
struct ServeSubscriptionLimitTests {
    @Test func subscriptionsPastTheHubsLimitAreRefusedWith503AndTheChannelListStaysBounded() async throws {
        let limits = TestHub.limits { $0.channels.maxSubscriptions = 50 }
        try await ServeProcess.with(limits: limits, development: false) { serve in
            let url = URL(string: "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7")!
            let first = try TestWebSocketClient(url: url)
            let second = try TestWebSocketClient(url: url)
            for client in [first, second] { _ = try await client.next(event: "pusher:connection_established") }
            #expect(try await Self.subscribe(first, channels: (0..<30).map { "a-\($0)" }).succeeded == 30)
            let (succeeded, refused) = try await Self.subscribe(second, channels: (0..<30).map { "b-\($0)" })
            #expect(succeeded == 20)
            #expect(refused.count == 10)
            #expect(refused.allSatisfy { $0.dataObject["status"] as? Int == 503 && $0.dataObject["type"] as? String == "LimitReached" })
            let channels = try await serve.http.signed("GET", "/apps/\(TestHub.appID)/channels").json["channels"] as? [String: Any]
            #expect(channels?.count == 50)
            // Leaving a channel makes room; so does a connection that closes.
            second.send(#"{"event":"pusher:unsubscribe","data":{"channel":"b-0"}}"#)
            try await eventually("room for one more") { try await Self.subscribe(second, channels: ["b-again"]).succeeded == 1 }
            await first.disconnect()
            try await eventually("room for the refused ones") {
                try await Self.subscribe(second, channels: (20..<30).map { "b-\($0)" }).succeeded == 10
            }
            #expect(serve.process.stderr.contains("hub.subscriptions.full"), "\(serve.process.stderr.suffix(1_000))")
            await second.disconnect()
        }
    }

    /// Subscribes `client` to `channels` (public) and returns how many succeeded and the refusals.
    static func subscribe(_ client: TestWebSocketClient, channels: [String]) async throws -> (succeeded: Int, refused: [ReceivedFrame]) {
        for channel in channels { client.send(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#) }
        var succeeded = 0
        var refused: [ReceivedFrame] = []
        while succeeded + refused.count < channels.count, let frame = await client.next(timeout: .seconds(10)) {
            if frame.event == "pusher_internal:subscription_succeeded" { succeeded += 1 }
            if frame.event == "pusher:subscription_error" { refused.append(frame) }
        }
        return (succeeded, refused)
    }
}
