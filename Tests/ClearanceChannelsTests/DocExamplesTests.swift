import Clearance
import ClearanceChannels
import Foundation
import Testing

/// The Swift blocks of `ClearanceChannels`' landing page and doc comments, compiled (they name a
/// hub on 127.0.0.1:6001, so they are not run here; the README's channel example, run against a
/// hub, is `ReadmeChannelsExampleTests`). `DocumentationTests` checks the documents show the
/// marked regions.
enum ChannelsDocExamples {
    static func landingPageConnect(session: any CredentialSource) async throws {
        // snippet: begin
        let client = ChannelClient(key: "app-key", options: ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: 6001),
            authorizer: try ServerChannelAuthorizer(
                endpoint: URL(string: "http://127.0.0.1:6001/pusher/auth")!,
                credentialSource: session)))
        await client.connect()
        let room = await client.subscribe("presence-room")
        try await room.subscribed()
        for await change in room.members { print(change) }
        // snippet: end
    }

    static func landingPageWatchlist(client: ChannelClient) async throws {
        // snippet: begin
        let watchlist = client.watchlistEvents
        _ = try await client.signIn()
        let lobby = await client.subscribe("lobby")
        print(lobby.subscriptionCount ?? 0)            // nil until the server sent a count
        for await event in watchlist { print(event) }  // online(bob, carol), offline(carol), …
        // snippet: end
    }

    static func landingPageRecovery(client: ChannelClient, refetchOrders: @Sendable () async -> Void) async throws {
        // snippet: begin
        let orders = await client.subscribe("orders")
        for await event in orders.events {
            if let recovery = ChannelRecovery(event), !recovery.isRecovered {
                await refetchOrders()                   // some events may be lost: ask the app's server
            } else if event.name == "created" {
                print(event.data ?? "")                 // each event once, in order, across reconnects
            }
        }
        // snippet: end
    }

    static func channelClientDocComment(authURL: URL, session: any CredentialSource) async throws {
        // snippet: begin
        let client = ChannelClient(key: "app-key", options: ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: 6001),
            authorizer: try ServerChannelAuthorizer(endpoint: authURL, credentialSource: session)))
        await client.connect()
        let orders = await client.subscribe("private-orders")
        for await event in orders.bind(event: "created") { print(event.data ?? "") }
        // snippet: end
    }
}
