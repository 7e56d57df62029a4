import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve`'s webhooks bounded in bytes and time, against the Python receiver
/// (`Tests/Interop/webhook_receiver.py`, every webhook checked by the official library's
/// `validate_webhook`): a batch stays under `maxWebhookBatchBytes`, and one whole deadline covers
/// each attempt's head and body.
@Suite("clearance serve: webhooks bounded in bytes and time", .timeLimit(.minutes(3)))
struct ServeWebhookBoundTests {
    @Test func fortyClientEventsOfControlCharactersAllReachAReceiverThatRefusesBodiesAboveOneMebibyte() async throws {
        let receiver = try await PythonWebhookReceiver.start(maxBody: 1_048_576)
        try await withCleanup {
            let limits = TestHub.limits { $0.webhookBatchWindow = 0.5 }
            try await ServeProcess.with(limits: limits, adjustApp: { app in
                app.clientEventsPerSecond = 100
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.clientEvent])]
            }) { serve in
                let (alice, aliceID) = try await serve.connect()
                try await TestHub.subscribe(alice, socketID: aliceID, channel: "private-room")
                // A string of 5,400 control characters: 32,400 bytes of JSON each, 40 of them 1.3 MB.
                let data = String(repeating: "\\u0001", count: 5_400)
                for index in 0..<40 {
                    alice.send(#"{"event":"client-big","channel":"private-room","data":"\#(index):\#(data)"}"#)
                }
                try await eventually("all 40 client events", timeout: .seconds(30)) { receiver.events.count >= 40 }
                let numbers = receiver.events.compactMap { event -> Int? in
                    guard case let .clientEvent(_, _, data, _, _) = event, data.hasSuffix(String(repeating: "\u{1}", count: 5_400)) else { return nil }
                    return Int(data.prefix { $0 != ":" })
                }
                #expect(numbers == Array(0..<40), "each once, in order")
                #expect(receiver.tooLarge.isEmpty, "no batch passed the receiver's 1 MiB: \(receiver.tooLarge)")
                #expect(receiver.payloads.count >= 3, "cut under 512 KiB: \(receiver.payloads.count) POSTs")
                #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                await alice.disconnect()
            }
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func aReceiverThatAnswers413BelowTheHubsBoundStillGetsEveryEventInSmallerBatches() async throws {
        // The receiver takes 100 KB at most: the hub's 512 KiB batches are refused, halved, until
        // they fit; nothing is lost and the events stay in order.
        let receiver = try await PythonWebhookReceiver.start(maxBody: 100_000)
        try await withCleanup {
            let limits = TestHub.limits { $0.webhookBatchWindow = 0.5 }
            try await ServeProcess.with(limits: limits, adjustApp: { app in
                app.clientEventsPerSecond = 100
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.clientEvent])]
            }) { serve in
                let (alice, aliceID) = try await serve.connect()
                try await TestHub.subscribe(alice, socketID: aliceID, channel: "private-room")
                let data = String(repeating: "x", count: 9_000)
                for index in 0..<40 {
                    alice.send(#"{"event":"client-big","channel":"private-room","data":"\#(index):\#(data)"}"#)
                }
                try await eventually("all 40 client events", timeout: .seconds(60)) { receiver.events.count >= 40 }
                #expect(receiver.events.count == 40)
                #expect(!receiver.tooLarge.isEmpty, "the receiver refused the first, larger batches")
                #expect(receiver.problems.isEmpty, "\(receiver.problems)")
                await alice.disconnect()
            }
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func aReceiverThatStallsAfterItsHeadersIsTimedOutCountedAndTheNextWebhookDelivered() async throws {
        let receiver = try await PythonWebhookReceiver.start(stalls: 1)
        let metricsPort = try LoopbackPort.free()
        try await withCleanup {
            let limits = TestHub.limits {
                $0.webhookBatchWindow = 0.1
                $0.webhookAttemptTimeout = 1
                $0.webhookFirstRetryDelay = 0.5
            }
            try await ServeProcess.with(limits: limits, arguments: ["--metrics-port", "\(metricsPort)"], adjustApp: { app in
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.channelOccupied, .channelVacated])]
            }) { serve in
                let (client, socketID) = try await serve.connect()
                try await TestHub.subscribe(client, socketID: socketID, channel: "news")
                // The first POST stalls after its head; the hub gives up on it and sends it again.
                try await eventually("channel_occupied after the stall", timeout: .seconds(30)) { !receiver.events.isEmpty }
                #expect(receiver.stalled == 1)
                await client.disconnect()
                try await eventually("the next webhook", timeout: .seconds(30)) { receiver.events.count == 2 }
                #expect(receiver.events == [.channelOccupied(channel: "news"), .channelVacated(channel: "news")])
                let metrics = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(metricsPort)")!)
                let text = try await metrics.raw("GET", "/metrics").body
                let failed = text.split(separator: "\n").first { $0.hasPrefix("clearance_webhook_attempts_failed_total ") }
                #expect(failed.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0 >= 1, "\(failed ?? "no counter")")
            }
        } cleanup: {
            await receiver.stop()
        }
    }
}
