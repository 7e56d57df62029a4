import Clearance
import ClearanceChannels
import ClearanceSecretBox
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

/// A server that misbehaves on purpose: the client must not be steered into a storm of
/// subscriptions, authorizations or reconnects.
struct HostileServerTests {
    static let key = [UInt8](repeating: 7, count: 32)

    static func sealed(_ text: String, key: [UInt8]) throws -> String {
        let nonce = (0..<24).map { _ in UInt8.random(in: 0...255) }
        let box = try SecretBox.seal(Array(text.utf8), nonce: nonce, key: key)
        let data = #"{"nonce":"\#(Data(nonce).base64EncodedString())","ciphertext":"\#(Data(box).base64EncodedString())"}"#
        return String(decoding: try JSONSerialization.data(withJSONObject: data, options: .fragmentsAllowed), as: UTF8.self)
    }

    static func event(_ name: String, channel: String, data: String) -> FakeAction {
        .send(#"{"event":"\#(name)","channel":"\#(channel)","data":\#(data)}"#)
    }

    @Test func aRepeatedConnectionEstablishedIsIgnored() async throws {
        let fake = try await FakePusherServer.start { _, event, _ in
            guard event == "pusher:subscribe" else { return [] }
            return [
                .send(#"{"event":"pusher_internal:subscription_succeeded","channel":"news","data":"{}"}"#),
                .send(#"{"event":"pusher:connection_established","data":"{\"socket_id\":\"666.666\",\"activity_timeout\":120}"}"#),
                .send(#"{"event":"pusher:connection_established","data":"{\"socket_id\":\"667.667\",\"activity_timeout\":120}"}"#),
                .pause(.milliseconds(200)),
                Self.event("marker", channel: "news", data: #""{}""#),
            ]
        }
        let client = ChannelClient(key: "test-key", options: TestHub.options(fake.port))
        await client.connect()
        let news = await client.subscribe("news")
        async let marker = first(news.events) { $0.name == "marker" }
        _ = try await marker
        // The marker came after the repeated connection_established frames, on the same socket:
        // the client read them first, and notes a subscribe as it decides to send one.
        #expect(await client.socketID == "1.1")
        #expect(await client.sentSubscriptions.count == 1)
        #expect(news.state.isSubscribed)
        // At the server, the positive control is an unsubscribe the client sends after that.
        await news.unsubscribe()
        try await eventually("the unsubscribe reached the server") { !fake.frames(event: "pusher:unsubscribe").isEmpty }
        #expect(fake.frames(event: "pusher:subscribe").count == 1)
        await client.disconnect()
        await fake.stop()
    }

    @Test func eventsThatFailToOpenTriggerOneReauthorizationNotOneEach() async throws {
        let calls = Counter()
        let authorizer = CustomChannelAuthorizer { _, _ in
            calls.increment()
            // sleep: the authorizer takes a while on purpose, so that bad events arrive during the re-authorization; not a wait.
            try? await Task.sleep(for: .milliseconds(30))
            return ChannelAuthorization(auth: "test-key:" + String(repeating: "0a", count: 32), sharedSecret: Data(Self.key).base64EncodedString())
        }
        let wrongKey = [UInt8](repeating: 9, count: 32)
        let channel = "private-encrypted-vault"
        let garbage = try (0..<12).flatMap { index -> [FakeAction] in
            [Self.event("bad-\(index)", channel: channel, data: try Self.sealed("{}", key: wrongKey)), .pause(.milliseconds(index % 3 == 0 ? 120 : 5))]
        }
        let fake = try await FakePusherServer.start { _, event, _ in
            guard event == "pusher:subscribe" else { return [] }
            return [.send(#"{"event":"pusher_internal:subscription_succeeded","channel":"\#(channel)","data":"{}"}"#)] + garbage
                + [(try? Self.sealed(#"{"ok":1}"#, key: Self.key)).map { Self.event("good", channel: channel, data: $0) } ?? .pause(.zero)]
        }
        let client = ChannelClient(key: "test-key", options: TestHub.options(fake.port, authorizer: authorizer))
        await client.connect()
        let vault = await client.subscribe(channel)
        let failures = Counter()
        let counting = Task { for await _ in vault.errors { failures.increment() } }
        async let good = first(vault.events) { $0.name == "good" }
        #expect(try await good.data == #"{"ok":1}"#)
        try await eventually("every bad event reported") { failures.value == 12 }
        // The subscription's authorization and one re-authorization: never one per bad event.
        #expect(calls.value == 2)
        counting.cancel()
        await client.disconnect()
        await fake.stop()
    }

    /// "Established", then 4200, again and again: after the planned-restart retries, the
    /// client backs off further and further instead of coming back at once for ever.
    @Test func establishedThenRestartAgainAndAgainBacksOff() async throws {
        let fake = try await FakePusherServer.start { _, event, _ in
            event == "pusher:subscribe" ? [.close(code: 4200, reason: "restarting")] : []
        }
        var options = TestHub.options(fake.port)
        options.reconnectPolicy = ReconnectPolicy(
            initialDelay: .milliseconds(100), maximumDelay: .seconds(5), jitter: 0,
            restartRetryInterval: .milliseconds(20), restartRetryAttempts: 3, stableConnectionDuration: .seconds(2))
        let client = ChannelClient(key: "test-key", options: options)
        await client.connect()
        _ = await client.subscribe("news")
        // The first connection, 3 quick retries, then back-offs of 0.1, 0.2, 0.4 and 0.8 s: the
        // gaps between connections are at least those delays however slow the run (a slow run
        // only makes them longer), so the test waits for the connections, not for a time.
        try await eventually("8 connections", timeout: .seconds(30)) { fake.connectedAt.withLock { $0.count } >= 8 }
        let times = fake.connectedAt.withLock { $0 }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        let backOffs: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)]
        for (index, minimum) in backOffs.enumerated() {
            #expect(gaps[3 + index] >= minimum, "gap \(3 + index + 1) was \(gaps[3 + index]); gaps: \(gaps)")
        }
        await client.disconnect()
        await fake.stop()
    }
}
