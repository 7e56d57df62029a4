import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Cache channels: the last event triggered through the HTTP API is kept and given to each new
/// subscriber right after `subscription_succeeded`; with none, `pusher:cache_miss`.
@Suite("Hub cache channels", .timeLimit(.minutes(1)))
struct HubCacheChannelTests {
    /// Subscribes and returns the frame that follows `subscription_succeeded`.
    private func firstAfterSubscribing(_ hub: HubServer, channel: String, channelData: String? = nil) async throws -> (TestWebSocketClient, ReceivedFrame) {
        let (client, socketID) = try await TestHub.connect(hub)
        try await TestHub.subscribe(client, socketID: socketID, channel: channel, channelData: channelData)
        let next = try #require(await client.next(timeout: .seconds(10)))
        return (client, next)
    }

    @Test func aNewSubscriberGetsTheLastTriggeredEventOrACacheMiss() async throws {
        try await TestHub.with { hub in
            let (early, miss) = try await firstAfterSubscribing(hub, channel: "cache-prices")
            #expect(miss.event == "pusher:cache_miss")
            #expect(miss.channel == "cache-prices")

            try await TestHub.trigger(hub, event: "price", channels: ["cache-prices"], data: #"{"v":1}"#)
            try await TestHub.trigger(hub, event: "price", channels: ["cache-prices"], data: #"{"v":2}"#)
            #expect(try await early.next(event: "price").dataObject["v"] as? Int == 1)
            #expect(try await early.next(event: "price").dataObject["v"] as? Int == 2)

            let (late, cached) = try await firstAfterSubscribing(hub, channel: "cache-prices")
            #expect(cached.event == "price")
            #expect(cached.dataObject["v"] as? Int == 2)
            #expect(try await late.unexpectedFrameBeforePong() == nil)

            // Other channels keep nothing and send no miss.
            try await TestHub.trigger(hub, event: "price", channels: ["prices"], data: "1")
            let (plain, plainID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(plain, socketID: plainID, channel: "prices")
            #expect(try await plain.unexpectedFrameBeforePong() == nil)
            for client in [early, late, plain] { await client.disconnect() }
        }
    }

    @Test func everyKindOfCacheChannelKeepsServerEventsButNotClientEvents() async throws {
        try await TestHub.with { hub in
            for channel in ["private-cache-a", "presence-cache-a"] {
                try await TestHub.trigger(hub, event: "server", channels: [channel], data: #"{"from":"server"}"#)
            }
            let data = TestHub.presenceData("alice")
            let (sender, server) = try await firstAfterSubscribing(hub, channel: "private-cache-a")
            #expect(server.event == "server")
            let (member, presence) = try await firstAfterSubscribing(hub, channel: "presence-cache-a", channelData: data)
            #expect(presence.event == "server")

            // A client event is relayed (the watcher gets it), not kept.
            let (watcher, _) = try await firstAfterSubscribing(hub, channel: "private-cache-a")
            sender.send(TestHub.frame(event: "client-typing", channel: "private-cache-a", data: ["x": 1]))
            #expect(try await watcher.next(event: "client-typing").channel == "private-cache-a")
            let (late, stillServer) = try await firstAfterSubscribing(hub, channel: "private-cache-a")
            #expect(stillServer.event == "server")
            for client in [sender, member, watcher, late] { await client.disconnect() }
        }
    }

    @Test func keptEventsExpire() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(TestHub.configuration(), clock: clock) { hub in
            try await TestHub.trigger(hub, event: "e", channels: ["cache-short"], data: "1")
            let (kept, event) = try await firstAfterSubscribing(hub, channel: "cache-short")
            #expect(event.event == "e")
            await kept.disconnect()
            await clock.advance(by: .seconds(1_800))
            let (expired, miss) = try await firstAfterSubscribing(hub, channel: "cache-short")
            #expect(miss.event == "pusher:cache_miss")
            await expired.disconnect()
        }
    }

    @Test func theNumberOfKeptEventsIsBoundedAndTheOneThatExpiresSoonestGoes() async throws {
        // On a manual clock, a second apart: each event expires a second after the one before.
        let clock = ManualHubClock()
        try await TestHub.with(TestHub.configuration(limits: TestHub.limits { $0.channels.maxCachedChannels = 2 }), clock: clock) { hub in
            for index in 1...3 {
                try await TestHub.trigger(hub, event: "e", channels: ["cache-\(index)"], data: "\(index)")
                await clock.advance(by: .seconds(1))
            }
            // cache-1 was triggered first, so it expires soonest: it made room for cache-3.
            let (one, first) = try await firstAfterSubscribing(hub, channel: "cache-1")
            #expect(first.event == "pusher:cache_miss")
            let (two, second) = try await firstAfterSubscribing(hub, channel: "cache-2")
            #expect(second.event == "e")
            let (three, third) = try await firstAfterSubscribing(hub, channel: "cache-3")
            #expect(third.event == "e")
            for client in [one, two, three] { await client.disconnect() }
        }
    }
}
