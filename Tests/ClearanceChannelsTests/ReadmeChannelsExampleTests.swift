import Clearance
import ClearanceChannels
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// The README's channel-client snippet, run against a hub, and the watchlist one of `Clearance`'s
/// tour against a scripted server; `DocumentationTests` checks the documents show the marked regions.
@Suite("README channels example", .timeLimit(.minutes(2)))
struct ReadmeChannelsExampleTests {
    @Test func serverBasedBatchedAuthorization() async throws {
        try await TestHub.with(TestHub.configuration(adjustApp: { $0.key = "app-key" })) { server in
            let authURL = server.httpURL.appendingPathComponent("pusher/auth")
            let session = StaticCredentialSource(.bearer(TestHub.alice.token))
            let hub = ChannelClientOptions.Endpoint.host("127.0.0.1", port: server.port)
            // The app's server triggers the event (signed with the app's key, "app-key") once the
            // hub says the channel has its subscriber.
            let signer = try RESTRequestSigner(appID: TestHub.appID, key: "app-key", secret: TestHub.secret)
            let body = #"{"channels":["private-orders"],"data":"{\"order\":42}","name":"order-shipped"}"#
            let triggers = Task {
                try await eventually("the channel is occupied", timeout: .seconds(30)) {
                    let channel = try await TestHTTP(server).signed("GET", "/apps/\(TestHub.appID)/channels/private-orders", signer: signer)
                    return channel.json["occupied"] as? Bool == true
                }
                #expect(try await TestHTTP(server).signed("POST", signer.eventsPath, body: body, signer: signer).status == 200)
            }
            // snippet: begin
            let authorizer = try ServerChannelAuthorizer(
                endpoint: authURL,                               // your backend's /pusher/auth
                credentialSource: session)                       // e.g. the OAuth2 session: refreshed, not broken, after sleep
            let client = ChannelClient(key: "app-key", options: ChannelClientOptions(
                endpoint: hub, authorizer: BatchingChannelAuthorizer(server: authorizer)))   // hub: .cluster("eu") for Pusher
            let orders = await client.subscribe("private-orders")     // queued until connected
            await client.connect()
            for await event in orders.bind(event: "order-shipped") {
                print(event.data ?? "")                               // {"order":42}
                break
            }
            // snippet: end
            try await triggers.value
            #expect(orders.state.isSubscribed)
            #expect(try await TestHTTP(server).signed("POST", signer.eventsPath, body: body, signer: signer).status == 200)
            #expect(try ChannelClientOptions(endpoint: .cluster("eu")).webSocketURL(key: "app-key").hasPrefix("wss://ws-eu.pusher.com"))
            await client.disconnect()
        }
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
}
