import Clearance
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance listen` against the hub: subscribes (with server-based authorization) and prints events as JSON lines.
@Suite("clearance listen", .timeLimit(.minutes(3)))
struct ListenCommandTests {
    @Test func printsEventsOfAuthorizedChannelsAsJSONLines() async throws {
        try await TestHub.with { hub in
            let listen = try ClearanceExecutable.start([
                "listen", "--key", TestHub.key, "--host", "127.0.0.1", "--port", "\(hub.port)",
                "--auth-url", hub.httpURL.appending(path: "/pusher/auth").absoluteString,
                "--header", "Authorization: Bearer alice-token", "private-listen",
            ])
            defer { Task { await listen.stop() } }
            // Trigger until the listener has subscribed and printed the event.
            try await eventually("the event printed by clearance listen", timeout: .seconds(20)) {
                try? await TestHub.trigger(hub, event: "shipped", channels: ["private-listen"], data: #"{"id":7}"#)
                return listen.stdout.contains("shipped")
            }
            let printed = await listen.line(timeout: .seconds(5)) { $0.contains("shipped") } ?? ""
            let object = try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any]
            #expect(object?["channel"] as? String == "private-listen")
            #expect(!printed.contains(TestHub.secret))
        }
    }

    /// With `--user-auth-url`: the watchlist's events and the channels' subscriber counts, each a
    /// JSON line on standard output, against a scripted server (both shapes of `data`).
    @Test func printsWatchlistEventsAndSubscriptionCounts() async throws {
        typealias Frames = FakeConnectionFrames
        try await AuthTestServer.with { auth in
            // The auth server's /user-auth signs in user "u1".
            let fake = try await FakePusherServer.start { _, event, data in
                switch (event, data["channel"] as? String) {
                case ("pusher:signin", _):
                    return [.send(Frames.signInSuccess("u1")), .send(Frames.watchlist([("online", ["bob", "carol"])]))]
                case ("pusher:subscribe", "#server-to-user-u1"?):
                    return [.send(Frames.subscribed("#server-to-user-u1")), .send(Frames.watchlist([("offline", ["carol"])], dataAsString: true))]
                case ("pusher:subscribe", "lobby"?):
                    return [.send(Frames.subscribed("lobby")), .send(Frames.subscriptionCount("lobby", 3))]
                default:
                    return []
                }
            }
            let listen = try ClearanceExecutable.start([
                "listen", "--key", "app-key", "--host", "127.0.0.1", "--port", "\(fake.port)",
                "--user-auth-url", auth.url("user-auth").absoluteString, "lobby",
            ])
            let offline = await listen.line(timeout: .seconds(20)) { $0.contains(#""watchlist":"offline""#) }
            let online = await listen.line(timeout: .seconds(5)) { $0.contains(#""watchlist":"online""#) }
            let count = await listen.line(timeout: .seconds(5)) { $0.contains("subscription_count") }
            await listen.stop()
            await fake.stop()
            #expect(online == #"{"user_ids":["bob","carol"],"watchlist":"online"}"#, "stderr: \(listen.stderr)")
            #expect(offline == #"{"user_ids":["carol"],"watchlist":"offline"}"#)
            #expect(count == #"{"channel":"lobby","data":{"subscription_count":3},"event":"pusher:subscription_count"}"#)
            #expect(listen.stderr.contains(##""signedIn":"#server-to-user-u1""##))
        }
    }
}
