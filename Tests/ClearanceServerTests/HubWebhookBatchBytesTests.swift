import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// Webhook batches bounded in bytes, against the Python receiver
/// (`Tests/Interop/webhook_receiver.py`, every webhook checked by the official library's
/// `validate_webhook`): a batch stays under `maxWebhookBatchBytes`, and a receiver that answers
/// 413 gets smaller batches. The hub runs on a manual clock, so the batch window closes only when
/// the test moves the clock, after all 40 events are queued: the first batch holds all 40 however
/// slow the machine is. (In wall-clock time a slow machine could queue them across several
/// windows, and no batch would be large enough to cut.)
@Suite("Hub: webhook batches bounded in bytes, on the hub's clock", .timeLimit(.minutes(2)))
struct HubWebhookBatchBytesTests {
    @Test func fortyClientEventsOfControlCharactersAllReachAReceiverThatRefusesBodiesAboveOneMebibyte() async throws {
        let receiver = try await PythonWebhookReceiver.start(maxBody: 1_048_576)
        try await withCleanup {
            // A string of 5,400 control characters: 32,400 bytes of JSON each, 40 of them 1.3 MB.
            let numbers = try await Self.fortyClientEvents(to: receiver, data: String(repeating: "\\u0001", count: 5_400))
            #expect(numbers == Array(0..<40), "each once, in order")
            #expect(receiver.events.allSatisfy { event in
                guard case let .clientEvent(_, _, text, _, _) = event else { return false }
                return text.hasSuffix(String(repeating: "\u{1}", count: 5_400))
            })
            #expect(receiver.tooLarge.isEmpty, "no batch passed the receiver's 1 MiB: \(receiver.tooLarge)")
            #expect(receiver.payloads.count >= 3, "cut under 512 KiB: \(receiver.payloads.count) POSTs")
            #expect(receiver.problems.isEmpty, "\(receiver.problems)")
        } cleanup: {
            await receiver.stop()
        }
    }

    @Test func aReceiverThatAnswers413BelowTheHubsBoundStillGetsEveryEventInSmallerBatches() async throws {
        // The receiver takes 100 KB at most: the hub's first batch (40 events of 9 KB) is
        // refused, halved, until it fits; nothing is lost and the events stay in order.
        let receiver = try await PythonWebhookReceiver.start(maxBody: 100_000)
        try await withCleanup {
            let numbers = try await Self.fortyClientEvents(to: receiver, data: String(repeating: "x", count: 9_000))
            #expect(numbers == Array(0..<40), "each once, in order")
            #expect(!receiver.tooLarge.isEmpty, "the receiver refused the first, larger batches")
            #expect(receiver.problems.isEmpty, "\(receiver.problems)")
        } cleanup: {
            await receiver.stop()
        }
    }

    /// Runs a hub on a manual clock whose app sends client events to `receiver`, has one client
    /// on a private channel send 40 events whose data is `"<n>:" + data` (`data` as JSON text),
    /// waits until the hub queued all 40, closes the batch window, waits until the receiver
    /// accepted all 40, and returns their numbers in the order they came.
    static func fortyClientEvents(to receiver: PythonWebhookReceiver, data: String) async throws -> [Int] {
        let clock = ManualHubClock()
        let configuration = TestHub.configuration(limits: TestHub.limits { $0.webhooks.webhookBatchWindow = 0.5 }) { app in
            app.clientEventsPerSecond = 100
            app.webhooks = [WebhookTarget(url: receiver.url, events: [.clientEvent])]
        }
        let queue = ObservedWebhookQueue()
        let hub = try await HubServer.start(configuration, logger: TestHub.quietLogger, webhookQueue: queue, clock: clock)
        return try await withCleanup {
            let (alice, aliceID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(alice, socketID: aliceID, channel: "private-room")
            for index in 0..<40 {
                alice.send(#"{"event":"client-big","channel":"private-room","data":"\#(index):\#(data)"}"#)
            }
            try await queue.queued(count: 40)
            // The first event's window ends; what the receiver refuses is tried again at once
            // (on the hub's clock), so no further move is needed.
            await clock.advance(by: .seconds(1))
            try await eventually("all 40 client events", timeout: .seconds(60)) { receiver.events.count >= 40 }
            await alice.disconnect()
            return receiver.events.compactMap { event -> Int? in
                guard case let .clientEvent(_, _, text, _, _) = event else { return nil }
                return Int(text.prefix { $0 != ":" })
            }
        } cleanup: {
            await hub.stop()
        }
    }
}
