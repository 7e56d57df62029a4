import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

@Suite("Hub client events and sign-in", .timeLimit(.minutes(1)))
struct HubClientEventTests {
    /// Two connections subscribed to `channel`.
    private func pair(_ hub: HubServer, channel: String, presence: Bool = false) async throws
        -> (sender: TestWebSocketClient, receiver: TestWebSocketClient) {
        let (sender, senderID) = try await TestHub.connect(hub)
        let (receiver, receiverID) = try await TestHub.connect(hub)
        try await TestHub.subscribe(sender, socketID: senderID, channel: channel, channelData: presence ? TestHub.presenceData("alice") : nil)
        try await TestHub.subscribe(receiver, socketID: receiverID, channel: channel, channelData: presence ? TestHub.presenceData("bob") : nil)
        if presence { _ = try await sender.next(event: "pusher_internal:member_added") }
        return (sender, receiver)
    }

    @Test func clientEventsReachOthersUnchangedAndAreNotEchoed() async throws {
        try await TestHub.with { hub in
            let (sender, receiver) = try await pair(hub, channel: "private-chat")
            sender.send(#"{"event":"client-typing","channel":"private-chat","data":{"big":12345678901234567890,"x":1.50}}"#)
            let received = try await receiver.next(event: "client-typing", channel: "private-chat")
            #expect(received.text.contains(#""data":{"big":12345678901234567890,"x":1.50}"#))
            #expect(received.userID == nil)
            #expect(try await sender.unexpectedFrameBeforePong() == nil)
            await sender.disconnect()
            await receiver.disconnect()
        }
    }

    @Test func presenceClientEventsCarryTheSendersUserID() async throws {
        try await TestHub.with { hub in
            let (sender, receiver) = try await pair(hub, channel: "presence-room", presence: true)
            sender.send(#"{"event":"client-wave","channel":"presence-room","data":"hi"}"#)
            let received = try await receiver.next(event: "client-wave")
            #expect(received.userID == "alice")
            #expect(received.rawData as? String == "hi")
            await sender.disconnect()
            await receiver.disconnect()
        }
    }

    @Test(arguments: [
        ("news", "Client events are only allowed on private and presence channels."),
        ("private-encrypted-vault", "Client events are not allowed on encrypted channels."),
    ])
    func clientEventsAreRefusedOnPublicAndEncryptedChannels(_ channel: String, _ message: String) async throws {
        try await TestHub.with { hub in
            let (sender, receiver) = try await pair(hub, channel: channel)
            sender.send(TestHub.frame(event: "client-x", channel: channel, data: ["a": 1]))
            let error = try await sender.next(event: "pusher:error")
            #expect(error.dataObject["message"] as? String == message)
            #expect(try await receiver.unexpectedFrameBeforePong() == nil)
            await sender.disconnect()
            await receiver.disconnect()
        }
    }

    @Test func clientEventsNeedASubscription() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(TestHub.frame(event: "client-x", channel: "private-elsewhere", data: [:]))
            #expect((try await client.next(event: "pusher:error").dataObject["message"] as? String)?.contains("subscribed") == true)
            await client.disconnect()
        }
    }

    @Test func clientEventsOverTenKilobytesAreRefused() async throws {
        try await TestHub.with { hub in
            let (sender, receiver) = try await pair(hub, channel: "private-big")
            sender.send(TestHub.frame(event: "client-big", channel: "private-big", data: String(repeating: "x", count: 10_240)))
            _ = try await receiver.next(event: "client-big")
            sender.send(TestHub.frame(event: "client-big", channel: "private-big", data: String(repeating: "x", count: 10_241)))
            #expect((try await sender.next(event: "pusher:error").dataObject["message"] as? String)?.contains("too large") == true)
            #expect(try await receiver.unexpectedFrameBeforePong() == nil)
            await sender.disconnect()
            await receiver.disconnect()
        }
    }

    @Test func theEleventhClientEventInASecondGets4301() async throws {
        try await TestHub.with { hub in
            let (sender, receiver) = try await pair(hub, channel: "private-fast")
            for index in 0..<11 {
                sender.send(TestHub.frame(event: "client-n", channel: "private-fast", data: ["n": index]))
            }
            let error = try await sender.next(event: "pusher:error")
            #expect(error.errorCode == 4301)
            var delivered = 0
            while let frame = await receiver.next(timeout: .milliseconds(300)), frame.event == "client-n" {
                delivered += 1
            }
            #expect(delivered == 10)
            // The connection stays open.
            sender.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await sender.next(event: "pusher:pong")
            await sender.disconnect()
            await receiver.disconnect()
        }
    }

    @Test func appsCanDisableClientEvents() async throws {
        try await TestHub.with(TestHub.configuration { $0.clientEvents = false }) { hub in
            let (sender, receiver) = try await pair(hub, channel: "private-quiet")
            sender.send(TestHub.frame(event: "client-x", channel: "private-quiet", data: [:]))
            #expect((try await sender.next(event: "pusher:error").dataObject["message"] as? String)?.contains("disabled") == true)
            await sender.disconnect()
            await receiver.disconnect()
        }
    }

    @Test func signInThenServerToUserEvents() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let userData = #"{"id":"alice","user_info":{"name":"Alice"}}"#
            let auth = try TestHub.signer.authenticateUser(socketID: socketID, userData: userData).auth
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": userData]))
            let success = try await client.next(event: "pusher:signin_success")
            #expect(success.dataObject["user_data"] as? String == userData)

            // Only the signed-in user's channel may be joined.
            client.send(TestHub.subscribeFrame(channel: "#server-to-user-bob", socketID: socketID))
            #expect(try await client.next(event: "pusher:subscription_error").dataObject["status"] as? Int == 403)
            try await TestHub.subscribe(client, socketID: socketID, channel: "#server-to-user-alice")

            let response = try await TestHTTP(hub).signed(
                "POST", "/apps/1234/events",
                body: ##"{"name":"notice","channels":["#server-to-user-alice"],"data":"{\"n\":1}"}"##
            )
            #expect(response.status == 200)
            let event = try await client.next(event: "notice", channel: "#server-to-user-alice")
            #expect(event.dataObject["n"] as? Int == 1)
            await client.disconnect()
        }
    }

    @Test func aBadSignInIsRefused() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let userData = #"{"id":"alice"}"#
            let wrong = try ChannelAuthSigner(key: TestHub.key, secret: "nope").authenticateUser(socketID: socketID, userData: userData).auth
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": wrong, "user_data": userData]))
            #expect((try await client.next(event: "pusher:error").dataObject["message"] as? String)?.hasPrefix("Sign-in failed") == true)
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": wrong, "user_data": "{}"]))
            #expect(try await client.next(event: "pusher:error").errorCode == nil)
            // Still not signed in.
            client.send(TestHub.subscribeFrame(channel: "#server-to-user-alice", socketID: socketID))
            #expect(try await client.next(event: "pusher:subscription_error").dataObject["status"] as? Int == 403)
            await client.disconnect()
        }
    }

    @Test func signingInStopsTheAuthorizationDeadline() async throws {
        // The deadline runs on a manual clock: it passes when the test moves the clock.
        let clock = ManualHubClock()
        let configuration = TestHub.configuration { $0.authorizedConnections = true; $0.authorizedConnectionTimeout = 30 }
        try await TestHub.with(configuration, clock: clock) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let userData = #"{"id":"carol"}"#
            let auth = try TestHub.signer.authenticateUser(socketID: socketID, userData: userData).auth
            client.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": userData]))
            _ = try await client.next(event: "pusher:signin_success")
            // The positive control: a connection that does not sign in, closed at the same tick.
            let (idle, _) = try await TestHub.connect(hub)
            await clock.advance(by: .seconds(30))
            #expect(try await idle.next(event: "pusher:error", timeout: .seconds(10)).errorCode == 4009)
            #expect(try await client.unexpectedFrameBeforePong() == nil)
            await client.disconnect()
        }
    }
}
