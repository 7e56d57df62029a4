import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

@Suite("Hub subscriptions and presence", .timeLimit(.minutes(1)))
struct HubSubscriptionTests {
    @Test(arguments: ["public-room", "private-orders", "private-encrypted-vault"])
    func subscribesWithAValidSignature(_ channel: String) async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let succeeded = try await TestHub.subscribe(client, socketID: socketID, channel: channel)
            #expect(succeeded.rawData as? String == "{}")
            await client.disconnect()
        }
    }

    @Test(arguments: ["private-orders", "private-encrypted-vault"])
    func aWrongSignatureIsRefusedWith401(_ channel: String) async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let wrong = try ChannelAuthSigner(key: TestHub.key, secret: "wrong-secret")
                .authorizeChannel(socketID: socketID, channelName: "private-orders").auth
            client.send(TestHub.subscribeFrame(channel: channel, socketID: socketID, auth: wrong))
            let error = try await client.next(event: "pusher:subscription_error", channel: channel)
            #expect(error.dataObject["type"] as? String == "AuthError")
            #expect(error.dataObject["status"] as? Int == 401)
            #expect((error.dataObject["error"] as? String)?.hasPrefix("Invalid signature") == true)
            await client.disconnect()
        }
    }

    @Test func aSignatureForAnotherSocketIsRefused() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(TestHub.subscribeFrame(channel: "private-orders", socketID: "1.2"))
            #expect(try await client.next(event: "pusher:subscription_error").dataObject["status"] as? Int == 401)
            await client.disconnect()
        }
    }

    @Test(arguments: [
        (#"{"channel":"private-a"}"#, 401),
        (#"{"channel":"private-a","auth":"no-colon"}"#, 401),
        (#"{"channel":"private-a","auth":"other-key:abc"}"#, 401),
        (#"{"channel":"presence-a","auth":"test-key:abc"}"#, 400),
        (#"{"channel":"bad channel!"}"#, 400),
        (#"{"channel":""}"#, 400),
        (##"{"channel":"#server-to-user-alice"}"##, 403),
    ])
    func badSubscriptionsGetASubscriptionError(_ data: String, _ status: Int) async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(#"{"event":"pusher:subscribe","data":\#(data)}"#)
            let error = try await client.next(event: "pusher:subscription_error")
            #expect(error.dataObject["status"] as? Int == status)
            await client.disconnect()
        }
    }

    @Test func channelNamesUpToTheLimitAreAccepted() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let longest = String(repeating: "a", count: 200)
            try await TestHub.subscribe(client, socketID: socketID, channel: longest)
            client.send(TestHub.subscribeFrame(channel: longest + "a", socketID: socketID))
            let error = try await client.next(event: "pusher:subscription_error")
            #expect(error.dataObject["type"] as? String == "InvalidChannel")
            #expect(error.channel == longest + "a")
            await client.disconnect()
        }
    }

    @Test func presenceMembersAreCountedPerUserWithAddedAndRemoved() async throws {
        try await TestHub.with { hub in
            let channel = "presence-lobby"
            let (alice, aliceID) = try await TestHub.connect(hub)
            let first = try await TestHub.subscribe(
                alice, socketID: aliceID, channel: channel, channelData: TestHub.presenceData("alice", info: #"{"name":"Alice"}"#)
            )
            let presence = try #require(first.dataObject["presence"] as? [String: Any])
            #expect(presence["ids"] as? [String] == ["alice"])
            #expect(presence["count"] as? Int == 1)
            #expect((presence["hash"] as? [String: Any])?["alice"] as? [String: String] == ["name": "Alice"])

            let (bob1, bob1ID) = try await TestHub.connect(hub)
            let bobJoined = try await TestHub.subscribe(bob1, socketID: bob1ID, channel: channel, channelData: TestHub.presenceData("bob"))
            #expect((bobJoined.dataObject["presence"] as? [String: Any])?["count"] as? Int == 2)
            let added = try await alice.next(event: "pusher_internal:member_added", channel: channel)
            #expect(added.dataObject["user_id"] as? String == "bob")

            // Bob's second connection is not a new member.
            let (bob2, bob2ID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(bob2, socketID: bob2ID, channel: channel, channelData: TestHub.presenceData("bob"))
            #expect(try await alice.unexpectedFrameBeforePong() == nil)

            // One of Bob's connections leaving keeps him present; the last one removes him.
            await bob1.disconnect()
            // Once the hub counts two subscribers, it has handled the disconnect: nothing for
            // alice before the answer to her ping.
            try await eventually("bob's first connection gone") {
                try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels/\(channel)", query: ["info": "subscription_count"])
                    .json["subscription_count"] as? Int == 2
            }
            #expect(try await alice.unexpectedFrameBeforePong() == nil)
            bob2.send(#"{"event":"pusher:unsubscribe","data":{"channel":"presence-lobby"}}"#)
            let removed = try await alice.next(event: "pusher_internal:member_removed", channel: channel)
            #expect(removed.dataObject["user_id"] as? String == "bob")

            await bob2.disconnect()
            await alice.disconnect()
        }
    }

    @Test func numericUserIDsArePresentedAsStrings() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let frame = try await TestHub.subscribe(client, socketID: socketID, channel: "presence-n", channelData: #"{"user_id":42}"#)
            #expect((frame.dataObject["presence"] as? [String: Any])?["ids"] as? [String] == ["42"])
            await client.disconnect()
        }
    }

    @Test func aFullPresenceChannelRefusesANewUser() async throws {
        let limits = TestHub.limits { $0.channels.maxPresenceMembers = 2 }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            var clients: [TestWebSocketClient] = []
            for user in ["u1", "u2"] {
                let (client, socketID) = try await TestHub.connect(hub)
                try await TestHub.subscribe(client, socketID: socketID, channel: "presence-full", channelData: TestHub.presenceData(user))
                clients.append(client)
            }
            let (third, thirdID) = try await TestHub.connect(hub)
            third.send(TestHub.subscribeFrame(channel: "presence-full", socketID: thirdID, channelData: TestHub.presenceData("u3")))
            let error = try await third.next(event: "pusher:subscription_error", channel: "presence-full")
            #expect(error.dataObject["type"] as? String == "LimitReached")
            // A present user may still add a connection.
            try await TestHub.subscribe(third, socketID: thirdID, channel: "presence-full", channelData: TestHub.presenceData("u1"))
            for client in clients + [third] { await client.disconnect() }
        }
    }

    @Test func userInfoOverTheLimitIsRefused() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let big = #"{"bio":""# + String(repeating: "x", count: 1_100) + #""}"#
            client.send(TestHub.subscribeFrame(channel: "presence-big", socketID: socketID, channelData: TestHub.presenceData("u", info: big)))
            #expect(try await client.next(event: "pusher:subscription_error").dataObject["type"] as? String == "LimitReached")
            await client.disconnect()
        }
    }

    @Test func invalidChannelDataIsRefusedWith400() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            for channelData in [#"{"user_id":""}"#, "[]", #"{"name":"no id"}"#] {
                // The content is checked before the signature.
                client.send(TestHub.subscribeFrame(channel: "presence-x", socketID: socketID, channelData: channelData, auth: "test-key:00"))
                #expect(try await client.next(event: "pusher:subscription_error").dataObject["status"] as? Int == 400)
            }
            await client.disconnect()
        }
    }

    @Test func unsubscribedConnectionsNoLongerGetEvents() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "news")
            client.send(#"{"event":"pusher:unsubscribe","data":{"channel":"news"}}"#)
            client.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await client.next(event: "pusher:pong")
            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/events", body: #"{"name":"n","channel":"news","data":"{}"}"#)
            #expect(response.status == 200)
            #expect(try await client.unexpectedFrameBeforePong() == nil)
            await client.disconnect()
        }
    }
}
