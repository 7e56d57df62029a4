import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// The guide "Coming from libPusher or pusher-websocket-swift"
/// (`Sources/ClearanceChannels/Documentation.docc/ComingFromPusher.md`): every snippet compiled
/// and run against a hub whose auth endpoint knows the test users. The guide's Swift blocks are
/// the marked regions below, line for line.
@Suite("Guide: coming from Pusher", .timeLimit(.minutes(2)))
struct GuideComingFromPusherTests {
    static let guide = "Sources/ClearanceChannels/Documentation.docc/ComingFromPusher.md"

    /// The app's backend, as a custom authorizer calls it: signs for alice with the app's secret.
    struct Backend: Sendable {
        let signer: ChannelAuthSigner
        func channelAuthorization(socketID: String, channelName: String) async throws -> ChannelAuthorization {
            try signer.authorizeChannel(socketID: socketID, channelName: channelName)
        }
    }

    static func withHub(_ body: (HubServer) async throws -> Void) async throws {
        try await TestHub.with(TestHub.configuration(adjustApp: { $0.key = "app-key" })) { hub in try await body(hub) }
    }

    @Test func serverAndCustomAuthorizersWithTheRequestHook() async throws {
        try await Self.withHub { hub in
            let authURL = hub.httpURL.appendingPathComponent("pusher/auth")
            let port = hub.port
            let session = StaticCredentialSource(.bearer(TestHub.alice.token))
            // snippet: begin
            let authorizer = try ServerChannelAuthorizer(
                endpoint: authURL,                                      // libPusher: authorizationURL
                parameters: [("app_version", "2.0")],                   // added to socket_id and channel_name
                credentialSource: session,                              // Authorization: Bearer …, refreshed once on a 401
                willSend: { request, _ in                               // willAuthorizeChannel:withAuthOperation:
                    request.headerFields[.userAgent] = "MyApp/2.0"
                })
            let client = ChannelClient(key: "app-key", options: ChannelClientOptions(
                endpoint: .host("127.0.0.1", port: port), authorizer: authorizer))
            await client.connect()
            let orders = await client.subscribe("private-orders")
            try await orders.subscribed()                               // throws ChannelError: why, never silence
            // snippet: end
            #expect(orders.state.isSubscribed)
            await client.disconnect()

            let backend = Backend(signer: try ChannelAuthSigner(key: "app-key", secret: TestHub.secret))
            // snippet: begin
            let custom = CustomChannelAuthorizer { socketID, channelName in     // fetchAuthValue(socketID:channelName:…)
                try await backend.channelAuthorization(socketID: socketID, channelName: channelName)
            }
            // snippet: end
            let own = ChannelClient(key: "app-key", options: TestHub.options(port, authorizer: custom))
            await own.connect()
            let secrets = await own.subscribe("private-secrets")
            try await secrets.subscribed()
            #expect(secrets.state.isSubscribed)
            await own.disconnect()
        }
    }

    @Test func presenceAndReconnects() async throws {
        try await Self.withHub { hub in
            let port = hub.port
            let authorizer = try TestHub.serverAuthorizer(hub, token: TestHub.alice.token)
            let client = ChannelClient(key: "app-key", options: TestHub.options(port, authorizer: authorizer))
            await client.connect()
            // Bob joins the room once alice is in it and watching its members (below): he then
            // comes as an `.added` change, never in the snapshot the stream starts with.
            let bob = ChannelClient(key: "app-key", options: TestHub.options(port, authorizer: try TestHub.serverAuthorizer(hub, token: TestHub.bob.token)))
            let joiner = Task {
                try await eventually("alice watching the room's members") {
                    (await client.channel(named: "presence-room")?.membersStreamCount ?? 0) > 0
                }
                await bob.connect()
                try await bob.subscribe("presence-room").subscribed()
            }
            // snippet: begin
            let room = await client.subscribe("presence-room")
            try await room.subscribed()
            let here = room.currentMembers                              // me(), members
            print(here.me?.id ?? "?", here.count, here.members["bob"] != nil)   // findMember(userId:)
            for await change in room.members {                          // onMemberAdded, onMemberRemoved
                if case .added(let member) = change { print("joined:", member.id); break }
            }
            // snippet: end
            try await joiner.value
            #expect(here.me?.id == "alice")
            #expect(room.currentMembers.members.keys.sorted() == ["alice", "bob"])
            await bob.disconnect()
            await client.disconnect()

            // snippet: begin
            let resilient = ChannelClient(key: "app-key", options: ChannelClientOptions(
                endpoint: .host("127.0.0.1", port: port), authorizer: authorizer,
                reconnectPolicy: ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(30))))
            await resilient.connect()
            for await state in resilient.states {                       // changedConnectionState(from:to:)
                print(state)                                            // connecting, connected(…), unavailable, …
                if state.socketID != nil { break }
            }
            // snippet: end
            #expect(await resilient.socketID != nil)
            await resilient.disconnect()
        }
    }

    /// The guide's Swift blocks are exactly this file's marked regions, in order.
    @Test func theGuideShowsThisCode() throws {
        let blocks = DocumentedSnippets.swiftBlocks(in: try DocumentedSnippets.packageFile(Self.guide))
        let regions = DocumentedSnippets.markedRegions(in: try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        #expect(!blocks.isEmpty && blocks == regions, "\(Self.guide) and this test drifted apart")
    }
}
