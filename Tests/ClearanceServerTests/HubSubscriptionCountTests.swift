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
@Suite("Hub: subscription counts", .timeLimit(.minutes(2)))
struct HubSubscriptionCountTests {
    static let counted = TestHub.configuration { $0.subscriptionCount = true }

    /// The count of the next `pusher_internal:subscription_count` frame of `channel`.
    static func nextCount(_ client: TestWebSocketClient, channel: String, timeout: Duration = .seconds(10)) async throws -> Int? {
        let frame = try await client.next(event: "pusher_internal:subscription_count", channel: channel, timeout: TestTiming.scaled(timeout))
        #expect(frame.rawData is String, "data is a JSON string, as Pusher sends it: \(frame)")
        return frame.dataObject["subscription_count"] as? Int
    }

    @Test func subscribersLearnTheCountWhenItChanges() async throws {
        try await TestHub.with(Self.counted) { hub in
            let (first, firstID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(first, socketID: firstID, channel: "news")
            #expect(try await Self.nextCount(first, channel: "news") == 1)
            let (second, secondID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(second, socketID: secondID, channel: "news")
            #expect(try await Self.nextCount(first, channel: "news") == 2)
            #expect(try await Self.nextCount(second, channel: "news") == 2)
            await second.disconnect()
            #expect(try await Self.nextCount(first, channel: "news") == 1)
            await first.disconnect()
        }
    }

    @Test func twoHundredJoinsWithinTwoSecondsSendAFewFramesEndingWithTheRightCount() async throws {
        try await TestHub.with(Self.counted) { hub in
            let (watcher, watcherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(watcher, socketID: watcherID, channel: "busy")
            var joiners: [TestWebSocketClient] = []
            let start = ContinuousClock.now
            for _ in 0..<200 {
                let (client, socketID) = try await TestHub.connect(hub)
                client.send(TestHub.subscribeFrame(channel: "busy", socketID: socketID))
                joiners.append(client)
            }
            let joining = ContinuousClock.now - start
            // Every frame the watcher gets, until the count is 201 and a second more has passed.
            var counts: [Int] = []
            while counts.last != 201 {
                guard let count = try await Self.nextCount(watcher, channel: "busy", timeout: .seconds(20)) else { break }
                counts.append(count)
            }
            #expect(await watcher.unexpectedFrame(within: .milliseconds(1_500)) == nil)
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
        try await TestHub.with(Self.counted) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "presence-room", channelData: TestHub.presenceData("amy"))
            let (other, otherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(other, socketID: otherID, channel: "presence-room", channelData: TestHub.presenceData("ben"))
            _ = try await client.next(event: "pusher_internal:member_added")
            #expect(await client.unexpectedFrame(within: .milliseconds(1_500)) == nil)
            await client.disconnect()
            await other.disconnect()
        }
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "news")
            let (other, otherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(other, socketID: otherID, channel: "news")
            #expect(await client.unexpectedFrame(within: .milliseconds(1_500)) == nil)
            await client.disconnect()
            await other.disconnect()
        }
    }
}

/// The `subscription_count` webhook, under the same coalescing as the frames.
@Suite("Hub: subscription_count webhook", .timeLimit(.minutes(2)))
struct HubSubscriptionCountWebhookTests {
    @Test func aTargetThatAsksGetsTheCoalescedCount() async throws {
        let receiver = try await RecordingWebhookReceiver.start()
        try await withCleanup {
            let configuration = TestHub.configuration(limits: TestHub.limits { $0.webhookBatchWindow = 0.05 }) { app in
                app.subscriptionCount = true
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.subscriptionCount])]
            }
            try await TestHub.with(configuration) { hub in
                var clients: [TestWebSocketClient] = []
                let start = ContinuousClock.now
                for _ in 0..<5 {
                    let (client, socketID) = try await TestHub.connect(hub)
                    try await TestHub.subscribe(client, socketID: socketID, channel: "counted")
                    clients.append(client)
                }
                try await eventually("the count of five") { receiver.events.last == .subscriptionCount(channel: "counted", count: 5) }
                let events = receiver.events
                // At most one a second while the joins lasted, and one after the last.
                let seconds = Int(((ContinuousClock.now - start) / .seconds(1)).rounded(.up))
                #expect(events.count <= seconds + 2, "coalesced: \(events)")
                for client in clients { await client.disconnect() }
                try await eventually("the count of none") { receiver.events.last == .subscriptionCount(channel: "counted", count: 0) }
            }
        } cleanup: { await receiver.stop() }
    }
}
