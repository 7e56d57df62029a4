import Clearance
import ClearanceChannels
import Foundation
import Testing

/// The README's channel-client snippet, compiled (and run up to the network). Keep the two in step.
@Suite("README channels example")
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
}
