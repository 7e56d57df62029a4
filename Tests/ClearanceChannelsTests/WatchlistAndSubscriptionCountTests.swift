import Clearance
import ClearanceChannels
import ClearanceSigning
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Logging
import Testing

/// The connection-level frames of Pusher's protocol that `clearance serve` adds in issue 22, as
/// `ChannelClient` reads them from a scripted server: watchlist events, subscription counts, and
/// the 4009 close of a connection not authorized in time.
@Suite("Watchlist, subscription counts and 4009", .serialized, .timeLimit(.minutes(3)))
struct WatchlistAndSubscriptionCountTests {
    typealias Frames = FakeConnectionFrames

    /// A client of `fake` that signs in as Alice, watching Bob, Carol and Dave.
    static func client(_ fake: FakePusherServerBox, logger: Logger? = nil) -> ChannelClient {
        let authenticator = CustomUserAuthenticator { _ in
            UserAuthentication(auth: "app-key:" + String(repeating: "0b", count: 32), userData: #"{"id":"alice","watchlist":["bob","carol","dave"]}"#)
        }
        var options = TestHub.options(fake.port, userAuthenticator: authenticator)
        if let logger { options.logger = logger }
        return ChannelClient(key: "app-key", options: options)
    }

    @Test func theOnlineListAfterSignInThenOnlineAndOfflineInBothDataShapes() async throws {
        let fake = try await FakePusherServer.start { _, event, data in
            switch (event, data["channel"] as? String) {
            case ("pusher:signin", _):
                // The data as an object, as Clearance's hub sends it.
                return [.send(Frames.signInSuccess("alice")), .send(Frames.watchlist([("online", ["bob", "carol"])]))]
            case ("pusher:subscribe", "#server-to-user-alice"?):
                // The data as a string holding the object, as Pusher sends most data; two entries in one frame.
                return [.send(Frames.subscribed("#server-to-user-alice")),
                        .send(Frames.watchlist([("online", ["dave"]), ("offline", ["carol"])], dataAsString: true))]
            default:
                return []
            }
        }
        let client = Self.client(fake)
        let watchlist = client.watchlistEvents
        await client.connect()
        _ = try await client.signIn()
        let events = try await collect(watchlist, count: 3)
        #expect(events == [
            WatchlistEvent(kind: .online, userIDs: ["bob", "carol"]),
            WatchlistEvent(kind: .online, userIDs: ["dave"]),
            WatchlistEvent(kind: .offline, userIDs: ["carol"]),
        ])
        #expect(events.map(\.description) == ["online(bob, carol)", "online(dave)", "offline(carol)"])
        await client.disconnect()
        await fake.stop()
    }

    @Test func countsPerChannelWithTheLastOneReadableAndReplayed() async throws {
        let fake = try await FakePusherServer.start { _, event, data in
            guard event == "pusher:subscribe", let channel = data["channel"] as? String else { return [] }
            switch channel {
            case "lobby":
                return [.send(Frames.subscribed("lobby")), .send(Frames.subscriptionCount("lobby", 1)),
                        .send(Frames.subscriptionCount("gone", 9)),     // a channel the client does not have
                        .send(Frames.subscriptionCount("lobby", 3, dataAsString: false))]
            case "news":
                return [.send(Frames.subscribed("news")), .send(Frames.subscriptionCount("news", 7))]
            default:
                return [.send(Frames.subscribed(channel))]
            }
        }
        let client = Self.client(fake)
        let lobby = await client.subscribe("lobby")
        let news = await client.subscribe("news")
        #expect(lobby.subscriptionCount == nil)
        let lobbyCounts = lobby.subscriptionCounts
        let lobbyEvents = lobby.events
        let newsCounts = news.subscriptionCounts
        await client.connect()
        #expect(try await collect(lobbyCounts, count: 2) == [1, 3])
        #expect(try await collect(newsCounts, count: 1) == [7])
        #expect(lobby.subscriptionCount == 3)
        #expect(news.subscriptionCount == 7)
        // The same counts on the channel's events, as pusher-js re-emits them.
        let lobbyEventsSeen = try await collect(lobbyEvents, count: 3)
        #expect(lobbyEventsSeen.first?.name == "pusher:subscription_succeeded")
        let countEvents = lobbyEventsSeen.filter(\.isSubscriptionCount)
        try #require(countEvents.count == 2)
        #expect(countEvents.map(\.name) == [ChannelEvent.subscriptionCount, "pusher:subscription_count"])
        #expect(countEvents.map(\.channel) == ["lobby", "lobby"])
        #expect(countEvents.map(\.data) == [#"{"subscription_count":1}"#, #"{"subscription_count":3}"#])
        struct Payload: Decodable, Equatable { let subscription_count: Int }
        #expect(try countEvents[1].decode(Payload.self) == Payload(subscription_count: 3))
        // A stream made later starts with the last count.
        #expect(try await collect(lobby.subscriptionCounts, count: 1) == [3])
        await client.disconnect()
        await fake.stop()
    }

    @Test func malformedFramesAreLoggedAndDroppedAndTheConnectionStays() async throws {
        let fake = try await FakePusherServer.start { _, event, data in
            switch (event, data["channel"] as? String) {
            case ("pusher:subscribe", "lobby"?):
                return [.send(Frames.subscribed("lobby"))]
            case ("pusher:signin", _):
                return [
                    .send(Frames.signInSuccess("alice")),
                    .send(Frames.raw("pusher_internal:watchlist_events", dataJSON: #""not json""#)),
                    .send(Frames.raw("pusher_internal:watchlist_events", dataJSON: #"{"events":"bob"}"#)),
                    .send(Frames.raw("pusher_internal:watchlist_events", dataJSON: #"{"events":[{"name":"away","user_ids":["x"]},{"name":"online","user_ids":[1]},{"name":"online","user_ids":["bob"]}]}"#)),
                    .send(Frames.raw("pusher_internal:subscription_count", dataJSON: #"{"subscription_count":2}"#)),
                    .send(Frames.raw("pusher_internal:subscription_count", channel: "lobby", dataJSON: #"{"subscription_count":-1}"#)),
                    .send(Frames.raw("pusher_internal:subscription_count", channel: "lobby", dataJSON: #""{\"subscription_count\":\"many\"}""#)),
                    .send(Frames.raw("pusher_internal:subscription_count", channel: "lobby", dataJSON: nil)),
                ]
            case ("pusher:subscribe", "#server-to-user-alice"?):
                return [.send(Frames.subscribed("#server-to-user-alice")),
                        .send(Frames.watchlist([("offline", ["bob"])])), .send(Frames.subscriptionCount("lobby", 4))]
            default:
                return []
            }
        }
        let logs = LogCapture()
        let client = Self.client(fake, logger: logs.logger("channels"))
        let lobby = await client.subscribe("lobby")
        let counts = lobby.subscriptionCounts
        let watchlist = client.watchlistEvents
        await client.connect()
        _ = try await client.signIn()
        // Only the usable entry of the bad frames arrives, then the good frames that follow them.
        #expect(try await collect(watchlist, count: 2) == [WatchlistEvent(kind: .online, userIDs: ["bob"]), WatchlistEvent(kind: .offline, userIDs: ["bob"])])
        #expect(try await collect(counts, count: 1) == [4])
        let malformed = logs.all.filter { $0.contains("channels.frame.malformed") }
        #expect(malformed.count == 8, "\(malformed)")
        #expect(malformed.allSatisfy { $0.hasPrefix("warning") })
        #expect(!logs.text.contains("many") && !logs.text.contains("not json"), "the frames' data stays out of the logs")
        #expect(await client.state.isConnected)
        #expect(fake.connections.withLock { $0 } == 1)
        await client.disconnect()
        await fake.stop()
    }

    @Test func close4009AfterTheTimeoutIsFinalSaysWhyAndNeverReconnects() async throws {
        let fake = try await FakePusherServer.start(greeting: { _ in
            [.pause(.milliseconds(300)), .close(code: 4009, reason: "Connection not authorized within timeout")]
        }) { _, _, _ in [] }
        let client = Self.client(fake)
        let states = client.states
        await client.connect()
        let failed = try await first(states) { $0.isTerminal }
        // Read as the client reached its end: no reconnect is scheduled, so none comes later
        // (the test options would reconnect after 20–200 ms).
        #expect(await client.reconnectScheduled == false, "no reconnect after 4009")
        guard case .failed(let error) = failed else {
            Issue.record("a 4009 close must fail the connection, not \(failed)")
            return
        }
        guard case .closedByServer(4009, let reason) = error else {
            Issue.record("a 4009 close must be closedByServer(4009), not \(error)")
            return
        }
        #expect(reason == "Connection not authorized within timeout", "the server's reason is kept")
        #expect(error.qualifiedCode == "channels.connection.closedByServer")
        #expect(error.message.contains("not authorized within timeout"))
        #expect(error.message.contains("not reconnecting"))
        do {
            _ = try await client.connected()
            Issue.record("connected() must throw after a 4009")
        } catch {
            #expect(error.closeCode == 4009)
        }
        #expect(fake.connections.withLock { $0 } == 1, "no reconnect after 4009")
        #expect(await client.state.isTerminal)
        await fake.stop()
    }

    @Test func a4009WithoutAReasonStillSaysWhatItMeans() {
        let bare = ChannelClientError.closedByServer(code: 4009, reason: "")
        #expect(bare.message.contains("not authorized within timeout"))
        #expect(bare.message.contains("ended the user's connections"))
        let terminated = ChannelClientError.closedByServer(code: 4009, reason: "Connection terminated: the app ended this user's connections")
        #expect(terminated.message.contains("terminated"))
        #expect(!terminated.message.contains("within timeout"))
        #expect(ServerRejection.connectionClosed(code: 4009, reason: "Connection not authorized within timeout").message.contains("not authorized within timeout"))
        #expect(ChannelClientError.closedByServer(code: 4001, reason: "App does not exist").message == "The server closed the connection with code 4001: App does not exist.")
    }
}
