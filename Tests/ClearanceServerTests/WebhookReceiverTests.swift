import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Hummingbird
import Testing

/// ``WebhookReceiver`` in a Hummingbird app: typed events from a real `clearance serve`, and
/// forged, stale, malformed or oversized bodies refused with the right status, never a crash.
@Suite("Webhook receiver", .timeLimit(.minutes(2)))
struct WebhookReceiverTests {
    /// What the receiver handed the app, and the custom header each POST carried.
    final class Received: Sendable {
        let payloads = Locked([WebhookPayload]())
        let tokens = Locked([String]())
        var events: [WebhookEvent] { payloads.withLock { $0.flatMap(\.events) } }
    }

    private func startReceiver(_ received: Received, maxBodyBytes: Int = 1_048_576, failing: Bool = false) async throws -> RunningServer {
        let receiver = try WebhookReceiver(key: TestHub.key, secret: TestHub.secret, maxBodyBytes: maxBodyBytes)
        let router = Router()
        router.post("/hooks") { request, _ in
            await receiver.respond(to: request) { payload in
                if failing { throw CancellationError() }
                received.payloads.withLock { $0.append(payload) }
                received.tokens.withLock { $0.append(request.headers.first(where: { $0.name.canonicalName == "x-hook-token" })?.value ?? "none") }
            }
        }
        return try await RunningServer.start(router, logger: TestHub.quietLogger)
    }

    @Test func eventsFromTheHubArriveTypedWithTheTargetsHeaders() async throws {
        let received = Received()
        let server = try await startReceiver(received)
        try await withCleanup {
            let limits = TestHub.limits { $0.webhooks.webhookBatchWindow = 0.05 }
            try await ServeProcess.with(limits: limits, adjustApp: { app in
                app.webhooks = [WebhookTarget(
                    url: server.baseURL.absoluteString + "/hooks", events: [.channelOccupied, .channelVacated, .memberAdded],
                    headers: ["X-Hook-Token": "t0k3n"], filter: WebhookChannelFilter(channelPrefix: "presence-"))]
            }) { serve in
                let (client, socketID) = try await serve.connect()
                try await TestHub.subscribe(client, socketID: socketID, channel: "news")
                try await TestHub.subscribe(client, socketID: socketID, channel: "presence-room", channelData: TestHub.presenceData("carol"))
                try await eventually("the presence channel's events") { received.events.count >= 2 }
                await client.disconnect()
                try await eventually("its vacancy") { received.events.count >= 3 }
                #expect(received.events == [
                    .channelOccupied(channel: "presence-room"), .memberAdded(channel: "presence-room", userID: "carol"), .channelVacated(channel: "presence-room"),
                ])
                #expect(received.tokens.withLock { $0 }.allSatisfy { $0 == "t0k3n" })
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test func forgedStaleMalformedAndOversizedWebhooksAreRefused() async throws {
        let received = Received()
        let server = try await startReceiver(received, maxBodyBytes: 4_096)
        try await withCleanup {
            let http = TestHTTP(baseURL: server.baseURL)
            let signer = try WebhookSigner(key: TestHub.key, secret: TestHub.secret)
            func post(_ body: String, signer: WebhookSigner? = signer, key: String? = nil) async throws -> HTTPResult {
                var headers = signer?.headers(body: Data(body.utf8)) ?? [:]
                if let key { headers[WebhookSigner.keyHeaderName] = key }
                return try await http.raw("POST", "/hooks", body: Data(body.utf8), contentType: "application/json", headers: headers)
            }
            let now = Int64(Date().timeIntervalSince1970 * 1_000)
            let good = #"{"time_ms":\#(now),"events":[{"name":"channel_occupied","channel":"a"}]}"#
            #expect(try await post(good).status == 200)
            #expect(received.events == [.channelOccupied(channel: "a")])

            let forger = try WebhookSigner(key: TestHub.key, secret: "another-secret")
            let forged = try await post(good, signer: forger)
            #expect(forged.status == 401)
            #expect(forged.json["error"] as? String == "webhook.invalidSignature")
            #expect(try await post(good, key: "another-key").status == 401)
            #expect(try await post(good, signer: nil).status == 401)
            let stale = #"{"time_ms":\#(now - 600_000),"events":[{"name":"channel_occupied","channel":"a"}]}"#
            #expect(try await post(stale).json["error"] as? String == "webhook.stale")
            for body in ["not json", #"{"events":[]}"#, #"{"time_ms":\#(now),"events":[{"name":"nope","channel":"a"}]}"#, "[]"] {
                let answer = try await post(body)
                #expect(answer.status == 400, "\(body)")
                #expect(answer.json["error"] as? String == "webhook.malformedBody")
            }
            let large = #"{"time_ms":\#(now),"events":[],"pad":"\#(String(repeating: "x", count: 5_000))"}"#
            #expect(try await post(large).status == 413)
            #expect(received.events.count == 1, "nothing refused reached the app")
        } cleanup: {
            await server.stop()
        }
    }

    @Test func anAppThatFailsAnswers500SoTheHubRetries() async throws {
        let server = try await startReceiver(Received(), failing: true)
        try await withCleanup {
            let signer = try WebhookSigner(key: TestHub.key, secret: TestHub.secret)
            let body = #"{"time_ms":\#(Int64(Date().timeIntervalSince1970 * 1_000)),"events":[]}"#
            let answer = try await TestHTTP(baseURL: server.baseURL).raw(
                "POST", "/hooks", body: Data(body.utf8), contentType: "application/json", headers: signer.headers(body: Data(body.utf8)))
            #expect(answer.status == 500)
        } cleanup: {
            await server.stop()
        }
    }

    /// What the Webhooks article's handler does with the events.
    actor Rooms {
        private(set) var log: [String] = []
        func close(_ channel: String) { log.append("close \(channel)") }
        func join(_ channel: String, _ userID: String) { log.append("join \(channel) \(userID)") }
    }

    @Test func theReadmesReceiverHandsTheAppTypedEvents() async throws {
        let rooms = Rooms()
        // snippet: begin
        let router = Router()
        let receiver = try WebhookReceiver(key: "app-key", secret: "app-secret")
        receiver.register(on: router, path: "/pusher/webhooks") { payload in
            for event in payload.events {
                switch event {
                case let .channelVacated(channel): await rooms.close(channel)
                case let .memberAdded(channel, userID): await rooms.join(channel, userID)
                default: break
                }
            }
        }
        // snippet: end
        let server = try await RunningServer.start(router, logger: TestHub.quietLogger)
        try await withCleanup {
            let body = WebhookPayload(
                timeMilliseconds: Int64(Date().timeIntervalSince1970 * 1_000),
                events: [.memberAdded(channel: "presence-a", userID: "alice"), .channelVacated(channel: "presence-a")]).encoded()
            let signer = try WebhookSigner(key: "app-key", secret: "app-secret")
            let answer = try await TestHTTP(baseURL: server.baseURL).raw(
                "POST", "/pusher/webhooks", body: body, contentType: "application/json", headers: signer.headers(body: body))
            #expect(answer.status == 200)
            #expect(await rooms.log == ["join presence-a alice", "close presence-a"])
        } cleanup: {
            await server.stop()
        }
    }

    /// The operator's guide's "Webhooks" article shows exactly this file's marked region.
    @Test func theGuideShowsThisCode() throws {
        let article = "Sources/ClearanceServer/Documentation.docc/WebhooksGuide.md"
        let blocks = DocumentedSnippets.swiftBlocks(in: try DocumentedSnippets.packageFile(article))
        let regions = DocumentedSnippets.markedRegions(in: try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(!blocks.isEmpty && blocks == regions, "\(article) and this test drifted apart")
    }
}
