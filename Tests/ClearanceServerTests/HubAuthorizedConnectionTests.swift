import ClearanceChannels
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Authorized connections (an app's `authorizedConnections`): a connection that neither signs
/// in nor subscribes to a private or presence channel in time is closed with 4009; until it
/// authorizes, it does not count against the app's `maxConnections`; a `ChannelClient` closed so
/// does not reconnect.
@Suite("Hub: authorized connections", .timeLimit(.minutes(2)))
struct HubAuthorizedConnectionTests {
    /// The test app with authorized connections and `timeout`, in seconds of the hub's clock (a
    /// ``ManualHubClock``: the deadline passes when a test moves it, never on its own).
    static func configuration(timeout: Double = 30, maxConnections: Int? = nil) -> HubConfiguration {
        TestHub.configuration { app in
            app.authorizedConnections = true
            app.authorizedConnectionTimeout = timeout
            app.maxConnections = maxConnections
        }
    }

    @Test func onlyPrivatePresenceAndSignedInConnectionsOutliveTheTimeout() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.configuration(), clock: clock) { hub in
            let (idle, _) = try await TestHub.connect(hub)
            let (publicOnly, publicID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(publicOnly, socketID: publicID, channel: "news")
            let (privateOne, privateID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(privateOne, socketID: privateID, channel: "private-room")
            let (presenceOne, presenceID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(presenceOne, socketID: presenceID, channel: "presence-room", channelData: TestHub.presenceData("dan"))
            let (signedIn, signedInID) = try await TestHub.connect(hub)
            let userData = #"{"id":"erin"}"#
            let auth = try TestHub.signer.authenticateUser(socketID: signedInID, userData: userData).auth
            signedIn.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": userData]))
            _ = try await signedIn.next(event: "pusher:signin_success")

            await clock.advance(by: .seconds(30))
            for client in [idle, publicOnly] {
                let error = try await client.next(event: "pusher:error", timeout: .seconds(10))
                #expect(error.errorCode == 4009 && error.dataObject["message"] as? String == "Connection not authorized within timeout", "\(error)")
                #expect(try await client.closeCode() == 4009)
            }
            // The others were ticked with them: nothing before the answer to a ping.
            for client in [privateOne, presenceOne, signedIn] {
                #expect(try await client.unexpectedFrameBeforePong() == nil)
                await client.disconnect()
            }
        }
    }

    @Test func aRefusedPrivateSubscriptionDoesNotAuthorize() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.configuration(), clock: clock) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            client.send(TestHub.subscribeFrame(channel: "private-room", socketID: socketID, auth: "\(TestHub.key):forged"))
            _ = try await client.next(event: "pusher:subscription_error")
            await clock.advance(by: .seconds(30))
            #expect(try await client.next(event: "pusher:error", timeout: .seconds(10)).errorCode == 4009)
        }
    }

    @Test func connectionsCountAgainstTheAppsQuotaBeforeTheyAuthorize() async throws {
        // Turning authorized connections on never weakens maxConnections: anonymous sockets count
        // against the app they came in on from the start.
        try await TestHub.with(Self.configuration(maxConnections: 2), clock: ManualHubClock()) { hub in
            var clients: [(TestWebSocketClient, String)] = []
            for _ in 0..<2 { clients.append(try await TestHub.connect(hub)) }
            let third = try TestWebSocketClient(url: hub.webSocketURL())
            #expect(try await third.closeCode() == 4004)
            // One that authorizes keeps its place; one that leaves gives it back.
            try await TestHub.subscribe(clients[0].0, socketID: clients[0].1, channel: "private-a")
            await clients[1].0.disconnect()
            try await eventually("the place is free") {
                let client = try TestWebSocketClient(url: hub.webSocketURL())
                let frame = await client.next(timeout: .seconds(5))
                await client.disconnect()
                return frame?.event == "pusher:connection_established"
            }
            #expect(hub.counters.value(.connectionsRefusedAtAppLimit) >= 1)
            await clients[0].0.disconnect()
        }
    }

    @Test func aChannelClientClosedWith4009FailsForGoodAndDoesNotReconnect() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.configuration(), clock: clock) { hub in
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port))
            let states = client.states
            let recorded = Task {
                var seen: [ConnectionState] = []
                for await state in states {
                    seen.append(state)
                    if state == .disconnected || seen.count > 20 { break }
                }
                return seen
            }
            await client.connect()
            _ = try await client.connected()
            await clock.advance(by: .seconds(30))
            let state = try await first(client.states, timeout: .seconds(10)) { $0.isTerminal }
            guard case let .failed(error) = state, case let .closedByServer(code, reason) = error else {
                Issue.record("not closed by the server: \(state)")
                return
            }
            #expect(code == 4009 && reason == "Connection not authorized within timeout")
            #expect(error.message.contains("not authorized within timeout"), "\(error.message)")
            // No reconnect: none is scheduled as the client fails, and the state stays failed.
            #expect(await client.reconnectScheduled == false)
            #expect(await client.state == state)
            // Every state up to `disconnect()`'s, which ends the recording.
            await client.disconnect()
            let seen = await recorded.value
            #expect(seen.filter(\.isConnected).count == 1, "\(seen)")
        }
    }

    @Test func aSignedInChannelClientStaysConnected() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.configuration(), clock: clock) { hub in
            let authenticator = try InlineSecretUserAuthenticator(signer: TestHub.signer, userData: #"{"id":"frank"}"#)
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, userAuthenticator: authenticator))
            await client.connect()
            _ = try await client.connected()
            _ = try await client.signIn()
            // A connection that does not authorize, closed at the same tick: the positive control.
            let (idle, _) = try await TestHub.connect(hub)
            await clock.advance(by: .seconds(30))
            #expect(try await idle.next(event: "pusher:error", timeout: .seconds(10)).errorCode == 4009)
            // A round trip on the signed-in connection after that tick: nothing closed it.
            try await (await client.subscribe("news")).subscribed()
            #expect(await client.state.isConnected)
            await client.disconnect()
        }
    }
}
