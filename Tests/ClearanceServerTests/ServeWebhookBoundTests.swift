import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve`'s webhooks bounded in time, against the Python receiver
/// (`Tests/Interop/webhook_receiver.py`, every webhook checked by the official library's
/// `validate_webhook`): one whole deadline covers each attempt's head and body, and a reload keeps
/// each backlog with its target. (Batches bounded in bytes are `HubWebhookBatchBytesTests`, on
/// the hub's clock.)
@Suite("clearance serve: webhooks bounded in time", .timeLimit(.minutes(3)))
struct ServeWebhookBoundTests {
    @Test func aReceiverThatStallsAfterItsHeadersIsTimedOutCountedAndTheNextWebhookDelivered() async throws {
        let receiver = try await PythonWebhookReceiver.start(stalls: 1)
        let metricsPort = try LoopbackPort.free()
        try await withCleanup {
            let limits = TestHub.limits {
                $0.webhooks.webhookBatchWindow = 0.1
                $0.webhooks.webhookAttemptTimeout = 1
                $0.webhooks.webhookFirstRetryDelay = 0.5
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

    /// Targets are named by what they are: two targets swapped in the file, then SIGHUP, and the
    /// backlog queued for one (its receiver was down) reaches that one, never the other.
    @Test func aReloadThatReordersTargetsKeepsEachBacklogWithItsTarget() async throws {
        let downPort = try LoopbackPort.free()
        let occupancy = try await PythonWebhookReceiver.start()
        try await withCleanup {
            let port = try LoopbackPort.free()
            let limits = TestHub.limits {
                $0.webhooks.webhookBatchWindow = 0.1
                $0.webhooks.webhookFirstRetryDelay = 0.5
            }
            let clientEvents = WebhookTarget(url: "http://127.0.0.1:\(downPort)/webhooks", events: [.clientEvent])
            let occupied = WebhookTarget(url: occupancy.url, events: [.channelOccupied, .clientEvent], filter: WebhookChannelFilter(channelPrefix: "presence-"))
            var app = TestHub.configuration().apps[0]
            app.webhooks = [clientEvents, occupied]
            let file = try ServeProcess.writeConfiguration(port: port, limits: limits) { $0 = app }
            defer { try? FileManager.default.removeItem(at: file) }
            let serve = try await ServeProcess.start(configuration: file, port: port, development: false)
            try await withCleanup {
                let (client, socketID) = try await serve.connect()
                try await TestHub.subscribe(client, socketID: socketID, channel: "private-room")
                for index in 0..<3 { client.send(#"{"event":"client-queued","channel":"private-room","data":"\#(index)"}"#) }
                // A presence channel: the second target's own events, as a positive control.
                try await TestHub.subscribe(client, socketID: socketID, channel: "presence-room", channelData: TestHub.presenceData("alice"))
                try await eventually("the second target's channel_occupied") { occupancy.events.contains(.channelOccupied(channel: "presence-room")) }

                // Swap the two targets, reload, then bring the first target's receiver up.
                app.webhooks = [occupied, clientEvents]
                try ServeReloadTests.write(file, port: port, apps: [app], limits: limits)
                let line = try await ServeReloadTests.hangUp(serve)
                #expect(line.hasPrefix("reloaded "), "\(line)")
                let late = try await PythonWebhookReceiver.start(port: downPort)
                try await withCleanup {
                    try await eventually("the backlog reaches its own target", timeout: .seconds(30)) { late.events.count >= 3 }
                    #expect(late.events.map(\.kind) == [.clientEvent, .clientEvent, .clientEvent])
                    #expect(!occupancy.events.contains { $0.kind == .clientEvent && $0.channel == "private-room" }, "\(occupancy.events)")
                    #expect(late.problems.isEmpty && occupancy.problems.isEmpty)
                } cleanup: {
                    await late.stop()
                }
                await client.disconnect()
            } cleanup: {
                await serve.stop(.kill)
            }
        } cleanup: {
            await occupancy.stop()
        }
    }
}
