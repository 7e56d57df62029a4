import Clearance
import ClearanceChannels
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// The README's channel-client snippets, compiled (the first run up to the network, the watchlist
/// one against a scripted server). Keep the two in step: the marked regions must be README blocks.
@Suite("README channels example", .timeLimit(.minutes(2)))
struct ReadmeChannelsExampleTests {
    @Test func serverBasedBatchedAuthorization() async throws {
        let session = StaticCredentialSource(.bearer("token"))
        let authorizer = try ServerChannelAuthorizer(
            endpoint: URL(string: "https://example.com/pusher/auth")!,
            credentialSource: session)                       // e.g. the OAuth2 session: refreshed, not broken, after sleep
        let client = ChannelClient(key: "app-key", options: ChannelClientOptions(
            endpoint: .cluster("eu"), authorizer: BatchingChannelAuthorizer(server: authorizer)))
        let orders = await client.subscribe("private-orders")     // queued until connected
        #expect(orders.name == "private-orders")
        #expect(try ChannelClientOptions(endpoint: .cluster("eu")).webSocketURL(key: "app-key").hasPrefix("wss://ws-eu.pusher.com"))
        // await client.connect()
        // for await event in orders.bind(event: "order-shipped") { print(event.data ?? "") }
    }

    @Test func watchlistAndSubscriptionCounts() async throws {
        typealias Frames = FakeConnectionFrames
        let fake = try await FakePusherServer.start { _, event, data in
            switch (event, data["channel"] as? String) {
            case ("pusher:signin", _):
                return [.send(Frames.signInSuccess("alice")), .send(Frames.watchlist([("online", ["bob", "carol"])]))]
            case ("pusher:subscribe", "#server-to-user-alice"?):
                return [.send(Frames.subscribed("#server-to-user-alice")), .send(Frames.watchlist([("offline", ["carol"])], dataAsString: true))]
            case ("pusher:subscribe", "lobby"?):
                return [.send(Frames.subscribed("lobby")), .send(Frames.subscriptionCount("lobby", 3))]
            default:
                return []
            }
        }
        let authenticator = CustomUserAuthenticator { _ in
            UserAuthentication(auth: "app-key:" + String(repeating: "0c", count: 32), userData: #"{"id":"alice","watchlist":["bob","carol"]}"#)
        }
        let client = ChannelClient(key: "app-key", options: TestHub.options(fake.port, userAuthenticator: authenticator))
        let recorded = client.watchlistEvents
        await client.connect()
        // snippet: begin
        let watchlist = client.watchlistEvents                 // made before signIn(): the first event lists who is online now
        _ = try await client.signIn()                          // the client's userAuthenticator signs the user_data
        for await event in watchlist {
            print(event.kind, event.userIDs)                   // online ["bob", "carol"], then offline ["carol"], …
            if event.kind == .offline { break }
        }
        let lobby = await client.subscribe("lobby")
        for await count in lobby.subscriptionCounts {          // also on lobby.events as "pusher:subscription_count"
            print(count, lobby.subscriptionCount ?? 0)         // 3 3: the last count stays readable
            break
        }
        // snippet: end
        #expect(try await collect(recorded, count: 2) == [WatchlistEvent(kind: .online, userIDs: ["bob", "carol"]), WatchlistEvent(kind: .offline, userIDs: ["carol"])])
        #expect(lobby.subscriptionCount == 3)
        await client.disconnect()
        await fake.stop()
    }

    /// Every marked region of this file is one of the README's Swift blocks, word for word.
    @Test func theReadmeShowsThisCode() throws {
        let blocks = DocumentedSnippets.swiftBlocks(in: try DocumentedSnippets.packageFile("README.md"))
        let regions = DocumentedSnippets.markedRegions(in: try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(!regions.isEmpty)
        for region in regions {
            #expect(blocks.contains(region), "README.md and this test drifted apart:\n\(region)")
        }
    }
}
