import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Watchlist events on one hub, with raw frames: a signed-in connection learns which watched
/// users are online right after its sign-in, then when one comes online (their first
/// connection) and goes offline (their last); users it does not watch are never reported.
@Suite("Hub: watchlist events", .timeLimit(.minutes(2)))
struct HubWatchlistTests {
    /// A connection signed in as `userID` with `watchlist`, after its `pusher:signin_success`.
    static func signIn(_ hub: HubServer, _ userID: String, watching watchlist: [String]? = nil) async throws -> TestWebSocketClient {
        let (client, socketID) = try await TestHub.connect(hub)
        var userData: [String: Any] = ["id": userID]
        if let watchlist { userData["watchlist"] = watchlist }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: userData, options: [.sortedKeys]), as: UTF8.self)
        let auth = try TestHub.signer.authenticateUser(socketID: socketID, userData: text).auth
        client.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": text]))
        _ = try await client.next(event: "pusher:signin_success")
        return client
    }

    /// The next watchlist frame's events as (name, user ids).
    static func nextEvents(_ client: TestWebSocketClient) async throws -> [String: [String]] {
        let frame = try await client.next(event: "pusher_internal:watchlist_events")
        var events: [String: [String]] = [:]
        for event in frame.dataObject["events"] as? [[String: Any]] ?? [] {
            events[event["name"] as? String ?? "?"] = event["user_ids"] as? [String]
        }
        return events
    }

    @Test func initialOnlineThenOnlineAndOfflineOnlyWhenTheLastConnectionCloses() async throws {
        try await TestHub.with { hub in
            let bob = try await Self.signIn(hub, "bob")
            let alice = try await Self.signIn(hub, "alice", watching: ["bob", "carol", "dave"])
            #expect(try await Self.nextEvents(alice) == ["online": ["bob"]])

            let carol = try await Self.signIn(hub, "carol")
            #expect(try await Self.nextEvents(alice) == ["online": ["carol"]])
            // A second connection of carol is no news; neither is an unwatched user.
            let carolAgain = try await Self.signIn(hub, "carol")
            let erin = try await Self.signIn(hub, "erin")
            // Carol's first connection also holds a channel: once the hub counts none on it, it
            // has handled the disconnect (who is online with it): nothing for alice before the
            // answer to her ping.
            carol.send(#"{"event":"pusher:subscribe","data":{"channel":"carol-news"}}"#)
            _ = try await carol.next(event: "pusher_internal:subscription_succeeded")
            await carol.disconnect()
            try await eventually("carol's first connection gone") {
                try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels/carol-news", query: ["info": "subscription_count"])
                    .json["subscription_count"] as? Int == 0
            }
            #expect(try await alice.unexpectedFrameBeforePong() == nil)
            // Carol's last connection closes: offline.
            await carolAgain.disconnect()
            #expect(try await Self.nextEvents(alice) == ["offline": ["carol"]])
            await erin.disconnect()
            await bob.disconnect()
            #expect(try await Self.nextEvents(alice) == ["offline": ["bob"]])
            await alice.disconnect()
        }
    }

    @Test func noOneOnlineMeansNoFrameAndAnUnwatchedUserIsNeverReported() async throws {
        try await TestHub.with { hub in
            let alice = try await Self.signIn(hub, "alice", watching: ["bob"])
            let frank = try await Self.signIn(hub, "frank")
            let unwatching = try await Self.signIn(hub, "gina")
            #expect(try await alice.unexpectedFrameBeforePong() == nil)
            let bob = try await Self.signIn(hub, "bob")
            #expect(try await Self.nextEvents(alice) == ["online": ["bob"]])
            #expect(try await frank.unexpectedFrameBeforePong() == nil)
            #expect(try await unwatching.unexpectedFrameBeforePong() == nil)
            for client in [alice, frank, unwatching, bob] { await client.disconnect() }
        }
    }

    @Test(arguments: [
        ("[" + (0..<101).map { "\"user-\($0)\"" }.joined(separator: ",") + "]", "at most 100"),
        (#""bob""#, "must be an array"),
        ("[1,2]", "must hold user ids"),
        (#"[""]"#, "must hold user ids"),
    ])
    func aWatchlistThatIsNotAtMost100UserIDsRefusesTheSignIn(_ watchlist: String, _ message: String) async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let userData = #"{"id":"alice","watchlist":"# + watchlist + "}"
            let auth = try TestHub.signer.authenticateUser(socketID: socketID, userData: userData).auth
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": userData]))
            let error = try await client.next(event: "pusher:error")
            #expect((error.dataObject["message"] as? String)?.contains(message) == true, "\(error)")
            // Not signed in: a watched user's arrival is not told, and a good sign-in still works.
            let good = #"{"id":"alice","watchlist":["zed"]}"#
            let goodAuth = try TestHub.signer.authenticateUser(socketID: socketID, userData: good).auth
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": goodAuth, "user_data": good]))
            _ = try await client.next(event: "pusher:signin_success")
            await client.disconnect()
        }
    }

    @Test func oneUserWatchedByManyCostsOneDeliveryPerWatcher() async throws {
        try await TestHub.with { hub in
            var watchers: [TestWebSocketClient] = []
            for index in 0..<40 { watchers.append(try await Self.signIn(hub, "watcher-\(index)", watching: ["star"])) }
            let star = try await Self.signIn(hub, "star")
            for watcher in watchers { #expect(try await Self.nextEvents(watcher) == ["online": ["star"]]) }
            await star.disconnect()
            for watcher in watchers { #expect(try await Self.nextEvents(watcher) == ["offline": ["star"]]) }
            for watcher in watchers { await watcher.disconnect() }
        }
    }
}
