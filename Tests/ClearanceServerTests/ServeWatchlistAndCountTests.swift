import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Watchlist events and subscription counts in `clearance serve` as built, read by raw frames
/// from Python (`websocket-client`, the sign-in signed by the official `pusher` library's
/// `authenticate_user`) and by `ChannelClient`; a watchlist of 101 ids refused.
@Suite("clearance serve: watchlist and subscription counts (Python, ChannelClient)", .timeLimit(.minutes(3)))
struct ServeWatchlistAndCountTests {
    static let appID = "515151"  // the Python library takes digits only

    /// `hub_watch.py` against `serve`, once it said it is ready.
    static func watcher(_ serve: ServeProcess, user: String, watching: [String], channel: String = "-", seconds: Int = 60) async throws -> ChildProcess {
        let process = try PythonPeer.start("hub_watch.py", [
            "127.0.0.1", String(serve.port), appID, TestHub.key, TestHub.secret, user,
            watching.isEmpty ? "-" : watching.joined(separator: ","), channel, String(seconds),
        ])
        guard await process.line(timeout: .seconds(30), where: { $0.contains(#""ready": true"#) }) != nil else {
            await process.stop(.kill)
            throw ChildProcess.Failure("hub_watch.py is not ready: \(process.stdout) \(process.stderr.suffix(1_000))")
        }
        return process
    }

    /// A raw connection to `serve` and its socket id.
    static func connect(_ serve: ServeProcess) async throws -> (TestWebSocketClient, String) {
        let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7")!)
        let established = try await client.next(event: "pusher:connection_established")
        return (client, try #require(established.dataObject["socket_id"] as? String))
    }

    /// A ChannelClient of `serve` signed in as `userID`, its user data signed with the app secret.
    static func signedIn(_ serve: ServeProcess, as userID: String, watching: [String] = []) async throws -> ChannelClient {
        let authenticator = try TestHub.userAuthenticator(userID, watching: watching)
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(serve.port, userAuthenticator: authenticator))
        await client.connect()
        _ = try await client.connected()
        _ = try await client.signIn()
        return client
    }

    @Test func pythonAndChannelClientWatchersSeeOnlineAndOfflineAndUnwatchedUsersNever() async throws {
        // At info, the hub logs each connection's end (`hub.connection.closed`, with its socket id).
        let arguments = ["--log-level", "info"]
        try await ServeProcess.with(limits: TestHub.limits(), development: false, arguments: arguments, adjustApp: { $0.id = Self.appID }) { serve in
            let bob = try await Self.signedIn(serve, as: "bob")
            // Python alice watches bob (online now) and carol.
            let alice = try await Self.watcher(serve, user: "alice", watching: ["bob", "carol"])
            defer { Task { await alice.stop(.kill) } }
            try await eventually("alice learns bob is online") { HubWatchOutput.watchlist(alice) == ["online:bob"] }
            // A ChannelClient watcher too.
            let dan = ChannelClient(key: TestHub.key, options: TestHub.options(serve.port, userAuthenticator: try InlineSecretUserAuthenticator(
                signer: TestHub.signer, userData: #"{"id":"dan","watchlist":["carol"]}"#)))
            let danEvents = dan.watchlistEvents
            let danSeen = Locked([WatchlistEvent]())
            let reader = Task { for await event in danEvents { danSeen.withLock { $0.append(event) } } }
            await dan.connect()
            _ = try await dan.connected()
            _ = try await dan.signIn()

            let carol = try await Self.signedIn(serve, as: "carol")
            let carolAgain = try await Self.signedIn(serve, as: "carol")
            let erin = try await Self.signedIn(serve, as: "erin")
            try await eventually("carol online") {
                HubWatchOutput.watchlist(alice) == ["online:bob", "online:carol"] && danSeen.withLock { $0 } == [WatchlistEvent(kind: .online, userIDs: ["carol"])]
            }
            let carolSocket = try #require(await carol.socketID)
            await carol.disconnect()
            // The hub logs a connection's end once it left every channel and user table.
            try await eventually("carol's first connection ended") { serve.loggedConnectionClosed(socketID: carolSocket) }
            // A positive control after it on alice's connection: bob goes offline. Had carol's
            // first connection taken her offline, alice would have heard it before.
            await bob.disconnect()
            try await eventually("bob offline") { HubWatchOutput.watchlist(alice).last == "offline:bob" }
            #expect(HubWatchOutput.watchlist(alice) == ["online:bob", "online:carol", "offline:bob"], "carol still has a connection")
            await carolAgain.disconnect()
            await erin.disconnect()
            try await eventually("carol offline") { HubWatchOutput.watchlist(alice) == ["online:bob", "online:carol", "offline:bob", "offline:carol"] }
            try await eventually("carol offline for dan") { danSeen.withLock { $0 }.last == WatchlistEvent(kind: .offline, userIDs: ["carol"]) }
            #expect(!HubWatchOutput.watchlist(alice).contains { $0.contains("erin") })
            reader.cancel()
            await dan.disconnect()

            // A watchlist of 101 ids refuses the sign-in.
            let tooMany = (0..<101).map { "user-\($0)" }
            let refused = try PythonPeer.start("hub_watch.py", [
                "127.0.0.1", String(serve.port), Self.appID, TestHub.key, TestHub.secret, "greg", tooMany.joined(separator: ","), "-", "5",
            ])
            defer { Task { await refused.stop(.kill) } }
            try await eventually("the sign-in refused") { !HubWatchOutput.lines(refused, "error").isEmpty }
            let error = HubWatchOutput.lines(refused, "error")[0]["error"] as? [String: Any]
            #expect((error?["message"] as? String)?.contains("at most 100") == true, "\(String(describing: error))")
            // The same from a ChannelClient: its sign-in fails with the hub's reason.
            do {
                _ = try await Self.signedIn(serve, as: "greg", watching: tooMany)
                Issue.record("a watchlist of 101 ids signed in")
            } catch {
                #expect("\(error)".contains("at most 100"), "\(error)")
            }
        }
    }

    @Test func pythonSubscribersSeeCoalescedCountsAndNoneWithoutTheOption() async throws {
        try await ServeProcess.with(limits: TestHub.limits(), development: false, adjustApp: { $0.id = Self.appID; $0.subscriptionCount = true }) { serve in
            let watcher = try await Self.watcher(serve, user: "-", watching: [], channel: "lobby")
            defer { Task { await watcher.stop(.kill) } }
            try await eventually("its own count") { HubWatchOutput.lines(watcher, "count").last?["count"] as? Int == 1 }
            // A ChannelClient subscriber beside it.
            let swift = ChannelClient(key: TestHub.key, options: TestHub.options(serve.port))
            await swift.connect()
            let lobby = await swift.subscribe("lobby")
            try await lobby.subscribed()
            var joiners: [TestWebSocketClient] = []
            let start = ContinuousClock.now
            for _ in 0..<200 {
                let client = try await serve.connectedClient()
                client.send(#"{"event":"pusher:subscribe","data":{"channel":"lobby"}}"#)
                joiners.append(client)
            }
            let joining = ContinuousClock.now - start
            try await eventually("202", timeout: .seconds(20)) { HubWatchOutput.lines(watcher, "count").last?["count"] as? Int == 202 }
            try await eventually("the ChannelClient's count") { lobby.subscriptionCount == 202 }
            for client in joiners { await client.disconnect() }
            try await eventually("the ChannelClient's count after the joiners left") { lobby.subscriptionCount == 2 }
            // The positive control: the watcher's count after the joiners left. Any frame the
            // joins still caused came before it.
            try await eventually("the watcher's count after the joiners left") { HubWatchOutput.lines(watcher, "count").last?["count"] as? Int == 2 }
            let all = HubWatchOutput.lines(watcher, "count").compactMap { $0["count"] as? Int }
            let leaving = try #require(all.lastIndex(of: 202)).advanced(by: 1)
            let counts = Array(all[..<leaving])
            #expect(counts.count <= Int((joining / .seconds(1)).rounded(.up)) + 4, "\(counts.count) frames for 200 joins in \(joining): \(all)")
            #expect(counts.last == 202 && counts == counts.sorted(), "\(all)")
            #expect(all[leaving...].allSatisfy { $0 < 202 }, "\(all)")
            await swift.disconnect()

            // Presence channels get no counts (their member events say more): not for Python, not for
            // a ChannelClient, not for raw frames.
            let pythonPresence = try await Self.watcher(serve, user: "-", watching: [], channel: "presence-room", seconds: 10)
            defer { Task { await pythonPresence.stop(.kill) } }
            let presenceClient = ChannelClient(key: TestHub.key, options: TestHub.options(
                serve.port, authorizer: try InlineSecretChannelAuthorizer(key: TestHub.key, secret: TestHub.secret, userID: "zoe")))
            await presenceClient.connect()
            let room = await presenceClient.subscribe("presence-room")
            try await room.subscribed()
            let (amy, amyID) = try await Self.connect(serve)
            amy.send(TestHub.subscribeFrame(channel: "presence-room", socketID: amyID, channelData: TestHub.presenceData("amy")))
            _ = try await amy.next(event: "pusher_internal:subscription_succeeded")
            let (ben, benID) = try await Self.connect(serve)
            ben.send(TestHub.subscribeFrame(channel: "presence-room", socketID: benID, channelData: TestHub.presenceData("ben")))
            _ = try await amy.next(event: "pusher_internal:member_added")
            // The positive control: a counted channel of amy's, counted by a flush after the
            // joins, which would have counted the presence channel too.
            try await TestHub.subscribe(amy, socketID: amyID, channel: "control")
            #expect(try await HubSubscriptionCountTests.nextCount(amy, channel: "control") == 1)
            #expect(try await amy.unexpectedFrameBeforePong() == nil)
            #expect(room.subscriptionCount == nil)
            #expect(HubWatchOutput.lines(pythonPresence, "count").isEmpty, "\(pythonPresence.stdout)")
            await amy.disconnect()
            await ben.disconnect()
            await presenceClient.disconnect()
        }
        try await ServeProcess.with(limits: TestHub.limits(), development: false, adjustApp: { $0.id = Self.appID }) { serve in
            let watcher = try await Self.watcher(serve, user: "-", watching: [], channel: "lobby", seconds: 5)
            defer { Task { await watcher.stop(.kill) } }
            let other = try await serve.connectedClient()
            other.send(#"{"event":"pusher:subscribe","data":{"channel":"lobby"}}"#)
            _ = try await other.next(event: "pusher_internal:subscription_succeeded")
            // An app that does not count is never flushed: no timer to wait for. What the hub
            // sent the subscriber before its pong shows it.
            #expect(try await other.unexpectedFrameBeforePong() == nil)
            #expect(HubWatchOutput.lines(watcher, "count").isEmpty, "\(watcher.stdout)")
            await other.disconnect()
        }
    }
}
