import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Hummingbird
import Testing

/// `pusher_internal:subscription_count` on one hub: an app with `subscriptionCount` tells its
/// channels' subscribers their number when it changes, coalesced per channel (at most one frame
/// a second, one after the last change); never on presence channels nor for an app without it.
/// The hub's coalescing runs on a manual clock: frames go out only when a test moves it.
@Suite("Hub: subscription counts", .timeLimit(.minutes(2)))
struct HubSubscriptionCountTests {
    static let counted = TestHub.configuration { $0.subscriptionCount = true }

    /// The count of the next `pusher_internal:subscription_count` frame of `channel`.
    static func nextCount(_ client: TestWebSocketClient, channel: String, timeout: Duration = .seconds(10)) async throws -> Int? {
        let frame = try await client.next(event: "pusher_internal:subscription_count", channel: channel, timeout: timeout)
        #expect(frame.rawData is String, "data is a JSON string, as Pusher sends it: \(frame)")
        return frame.dataObject["subscription_count"] as? Int
    }

    @Test func subscribersLearnTheCountWhenItChanges() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.counted, clock: clock) { hub in
            let (first, firstID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(first, socketID: firstID, channel: "news")
            await clock.advance(by: .seconds(1))
            #expect(try await Self.nextCount(first, channel: "news") == 1)
            let (second, secondID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(second, socketID: secondID, channel: "news")
            await clock.advance(by: .seconds(1))
            #expect(try await Self.nextCount(first, channel: "news") == 2)
            #expect(try await Self.nextCount(second, channel: "news") == 2)
            await second.disconnect()
            try await eventually("the hub counts the second one gone") {
                try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels/news", query: ["info": "subscription_count"])
                    .json["subscription_count"] as? Int == 1
            }
            await clock.advance(by: .seconds(1))
            #expect(try await Self.nextCount(first, channel: "news") == 1)
            await first.disconnect()
        }
    }

    @Test func twoHundredJoinsWithinTwoSecondsSendAFewFramesEndingWithTheRightCount() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.counted, clock: clock) { hub in
            let (watcher, watcherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(watcher, socketID: watcherID, channel: "busy")
            var joiners: [TestWebSocketClient] = []
            // Two seconds of the hub's clock while they join, a quarter at a time.
            let joining = Duration.seconds(2)
            for index in 0..<200 {
                let (client, socketID) = try await TestHub.connect(hub)
                try await TestHub.subscribe(client, socketID: socketID, channel: "busy")
                joiners.append(client)
                if index % 25 == 24 { await clock.advance(by: .milliseconds(250)) }
            }
            // Every frame the watcher gets, until the count is 201 (a change is told within a
            // second of the hub's clock).
            var counts: [Int] = []
            while counts.last != 201 {
                await clock.advance(by: .seconds(1))
                guard let count = try await Self.nextCount(watcher, channel: "busy", timeout: .seconds(20)) else { break }
                counts.append(count)
            }
            // A second more: a channel subscribed now is counted by the next flush (the positive
            // control), and nothing of "busy" comes before it nor before the answer to a ping.
            try await TestHub.subscribe(watcher, socketID: watcherID, channel: "control")
            await clock.advance(by: .milliseconds(1_500))
            #expect(try await Self.nextCount(watcher, channel: "control") == 1)
            #expect(try await watcher.unexpectedFrameBeforePong() == nil)
            // At most one frame a second while the joins lasted, plus the one after the last.
            let seconds = Int((joining / .seconds(1)).rounded(.up))
            #expect(counts.count <= seconds + 3, "\(counts.count) frames for \(joining) of joins: \(counts)")
            #expect(counts.last == 201)
            #expect(counts == counts.sorted(), "\(counts)")
            for client in joiners { await client.disconnect() }
            await watcher.disconnect()
        }
    }

    @Test func noCountsOnPresenceChannelsNorForAnAppWithoutTheOption() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.counted, clock: clock) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "presence-room", channelData: TestHub.presenceData("amy"))
            let (other, otherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(other, socketID: otherID, channel: "presence-room", channelData: TestHub.presenceData("ben"))
            _ = try await client.next(event: "pusher_internal:member_added")
            // The positive control: a counted channel of the same client, counted by the flush
            // that would have counted the presence channel.
            try await TestHub.subscribe(client, socketID: socketID, channel: "control")
            await clock.advance(by: .milliseconds(1_500))
            #expect(try await Self.nextCount(client, channel: "control") == 1)
            #expect(try await client.unexpectedFrameBeforePong() == nil)
            await client.disconnect()
            await other.disconnect()
        }
        try await TestHub.with(clock: clock) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "news")
            let (other, otherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(other, socketID: otherID, channel: "news")
            // An app that does not count is never flushed: there is no timer to wait for.
            await clock.advance(by: .milliseconds(1_500))
            #expect(try await client.unexpectedFrameBeforePong() == nil)
            await client.disconnect()
            await other.disconnect()
        }
    }
}

/// The `subscription_count` webhook, under the same coalescing as the frames.
@Suite("Hub: subscription_count webhook", .timeLimit(.minutes(2)))
struct HubSubscriptionCountWebhookTests {
    // On the hub's clock, moved by the test: five joins in one instant of it are one count
    // (coalesced), and the count after they all left is one more.
    @Test func aTargetThatAsksGetsTheCoalescedCount() async throws {
        let clock = ManualHubClock()
        let receiver = try await RecordingWebhookReceiver.start()
        try await withCleanup {
            let configuration = TestHub.configuration(limits: TestHub.limits { $0.webhooks.webhookBatchWindow = 0.05 }) { app in
                app.subscriptionCount = true
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.subscriptionCount])]
            }
            try await TestHub.with(configuration, clock: clock) { hub in
                var clients: [TestWebSocketClient] = []
                for _ in 0..<5 {
                    let (client, socketID) = try await TestHub.connect(hub)
                    try await TestHub.subscribe(client, socketID: socketID, channel: "counted")
                    clients.append(client)
                }
                // The flush (within a second), then the batch window (50 ms), as often as it takes
                // the hub's loops to be asleep when the clock moves.
                await clock.advance(by: .seconds(1))
                try await retrying("the count of five", { await clock.advance(by: .milliseconds(100)) }) {
                    receiver.events.last == .subscriptionCount(channel: "counted", count: 5)
                }
                #expect(receiver.events == [.subscriptionCount(channel: "counted", count: 5)], "coalesced: \(receiver.events)")
                for client in clients { await client.disconnect() }
                try await eventually("the hub counts them gone") {
                    try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels/counted", query: ["info": "subscription_count"])
                        .json["subscription_count"] as? Int ?? 0 == 0
                }
                await clock.advance(by: .seconds(1))
                try await retrying("the count of none", { await clock.advance(by: .milliseconds(100)) }) {
                    receiver.events.last == .subscriptionCount(channel: "counted", count: 0)
                }
                #expect(receiver.events.count == 2, "coalesced: \(receiver.events)")
            }
        } cleanup: { await receiver.stop() }
    }
}
