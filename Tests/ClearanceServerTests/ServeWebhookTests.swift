import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` sending webhooks to a receiver that checks each with the official Pusher
/// library's `validate_webhook` (Tests/Interop/webhook_receiver.py).
@Suite("clearance serve and its webhooks", .timeLimit(.minutes(2)))
struct ServeWebhookTests {
    /// Every event but `cache_miss` to `receiver`, in batches of 100 ms.
    static func sending(to receiver: PythonWebhookReceiver, batchWindow: Double = 0.1) -> (limits: HubLimits, adjustApp: (inout HubAppConfiguration) -> Void) {
        let limits = TestHub.limits { $0.webhooks.webhookBatchWindow = batchWindow }
        return (limits, { app in
            app.webhooks = [WebhookTarget(url: receiver.url, events: [.channelOccupied, .channelVacated, .memberAdded, .memberRemoved, .clientEvent])]
        })
    }

    @Test func occupancyMembersAndClientEventsReachTheReceiverSignedInOrder() async throws {
        let receiver = try await PythonWebhookReceiver.start()
        try await withCleanup {
            let setup = Self.sending(to: receiver)
            try await ServeProcess.with(limits: setup.limits, adjustApp: setup.adjustApp) { serve in
                let (alice, aliceID) = try await serve.connect()
                let (bob, bobID) = try await serve.connect()
                try await TestHub.subscribe(alice, socketID: aliceID, channel: "news")
                try await TestHub.subscribe(alice, socketID: aliceID, channel: "presence-room", channelData: TestHub.presenceData("alice"))
                try await TestHub.subscribe(bob, socketID: bobID, channel: "presence-room", channelData: TestHub.presenceData("bob"))
                _ = try await alice.next(event: "pusher_internal:member_added")
                alice.send(#"{"event":"client-wave","channel":"presence-room","data":{"hand":"left"}}"#)
                _ = try await bob.next(event: "client-wave")
                try await eventually("the first webhooks") { receiver.events.count >= 5 }
                await bob.disconnect()
                // Bob is gone for the hub before Alice leaves.
                _ = try await alice.next(event: "pusher_internal:member_removed")
                await alice.disconnect()
                try await eventually("every webhook") { receiver.events.count >= 9 }
                let events = receiver.events
                #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                let room = events.filter { $0.channel == "presence-room" }
                #expect(room == [
                    .channelOccupied(channel: "presence-room"),
                    .memberAdded(channel: "presence-room", userID: "alice"),
                    .memberAdded(channel: "presence-room", userID: "bob"),
                    .clientEvent(channel: "presence-room", event: "client-wave", data: #"{"hand":"left"}"#, socketID: aliceID, userID: "alice"),
                    .memberRemoved(channel: "presence-room", userID: "bob"),
                    .memberRemoved(channel: "presence-room", userID: "alice"),
                    .channelVacated(channel: "presence-room"),
                ])
                #expect(events.filter { $0.channel == "news" } == [.channelOccupied(channel: "news"), .channelVacated(channel: "news")])
                // Batched: fewer POSTs than events.
                #expect(receiver.payloads.count < events.count)
            }
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func aCacheMissSendsItsWebhookOnceAndAKeptEventNone() async throws {
        let receiver = try await PythonWebhookReceiver.start()
        try await withCleanup {
            let limits = TestHub.limits { $0.webhooks.webhookBatchWindow = 0.1 }
            try await ServeProcess.with(limits: limits, adjustApp: { app in
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.cacheMiss])]
            }) { serve in
                let (first, firstID) = try await serve.connect()
                try await TestHub.subscribe(first, socketID: firstID, channel: "cache-prices")
                #expect(try await first.next(event: "pusher:cache_miss").channel == "cache-prices")
                try await eventually("the cache_miss webhook") { !receiver.events.isEmpty }
                // Once the channel keeps an event, a new subscriber gets it and no webhook goes out.
                try await TestHub.trigger(serve.http, event: "price", channels: ["cache-prices"], data: #"{"v":1}"#)
                let (second, secondID) = try await serve.connect()
                try await TestHub.subscribe(second, socketID: secondID, channel: "cache-prices")
                #expect(try await second.next(event: "price").channel == "cache-prices")
                // A positive control: a later miss on another channel. A target's webhooks go out
                // in order, so a second miss of cache-prices would have come before it.
                try await TestHub.subscribe(second, socketID: secondID, channel: "cache-control")
                try await eventually("the control's cache_miss webhook") { receiver.events.count >= 2 }
                #expect(receiver.events == [.cacheMiss(channel: "cache-prices"), .cacheMiss(channel: "cache-control")])
                #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                await first.disconnect()
                await second.disconnect()
            }
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func aReceiverThatAnswers500TwiceStillGetsTheWebhook() async throws {
        let receiver = try await PythonWebhookReceiver.start(failures: 2)
        try await withCleanup {
            let setup = Self.sending(to: receiver)
            try await ServeProcess.with(limits: setup.limits, adjustApp: setup.adjustApp) { serve in
                let (client, socketID) = try await serve.connect()
                try await TestHub.subscribe(client, socketID: socketID, channel: "news")
                try await eventually("the webhook after two refusals", timeout: .seconds(30)) { !receiver.events.isEmpty }
                #expect(receiver.refused == 2)
                #expect(receiver.events == [.channelOccupied(channel: "news")])
                #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                await client.disconnect()
            }
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func aStoppingHubSendsItsPendingWebhooksWithoutWaitingForTheBatchWindow() async throws {
        let receiver = try await PythonWebhookReceiver.start()
        try await withCleanup {
            let setup = Self.sending(to: receiver, batchWindow: 30)
            try await ServeProcess.with(limits: setup.limits, adjustApp: setup.adjustApp) { serve in
                let (client, socketID) = try await serve.connect()
                try await TestHub.subscribe(client, socketID: socketID, channel: "news")
                #expect(receiver.events.isEmpty, "the batch window (30 s) holds them")
                await serve.stop()
                #expect(serve.process.status == 0, "\(serve.process.stderr.suffix(1_000))")
                try await eventually("the webhooks of the stopped hub") { receiver.events.count == 2 }
                #expect(receiver.events == [.channelOccupied(channel: "news"), .channelVacated(channel: "news")])
            }
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func serveRefusesAPlainHTTPWebhookToAnotherHostAndNeverPrintsItsHeaders() async throws {
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: port) { app in
            app.webhooks = [WebhookTarget(url: "http://hooks.example.com/pusher", events: [.channelOccupied], headers: ["Authorization": "Bearer hunter2"])]
        }
        defer { try? FileManager.default.removeItem(at: configuration) }
        let output = try await ClearanceExecutable.run(["serve", "--config", configuration.path])
        #expect(output.status != 0)
        #expect(output.stderr.contains("plain http to hooks.example.com"), "\(output.stderr)")
        #expect(!output.stderr.contains("hunter2") && !output.stdout.contains("hunter2"))
    }
}

extension ServeProcess {
    /// A WebSocket client of the test app, once `pusher:connection_established` came.
    func connect() async throws -> (client: TestWebSocketClient, socketID: String) {
        let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(port)/app/\(TestHub.key)?protocol=7")!)
        let established = try await client.next(event: "pusher:connection_established")
        guard let socketID = established.dataObject["socket_id"] as? String else {
            throw TestWebSocketClient.Failure(description: "no socket_id in \(established)")
        }
        return (client, socketID)
    }
}
