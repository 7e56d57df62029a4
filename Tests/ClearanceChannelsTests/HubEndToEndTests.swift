import Clearance
import ClearanceChannels
import ClearanceSecretBox
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

@Suite struct HubEndToEndTests {
    @Test func queuedPublicSubscriptionReceivesTriggeredEvents() async throws {
        try await TestHub.withBox { box in
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(box.hub.port))
            let news = await client.subscribe("news")
            #expect(await client.subscribe("news") === news)
            #expect(news.state.description == "pending")
            await client.connect()
            let socketID = try await client.connected()
            #expect(SocketIDFormat.isValid(socketID))
            try await news.subscribed()
            struct Headline: Decodable, Sendable { let title: String }
            // The stream is subscribed when it is made: what comes after is kept for it.
            let headlines = news.bind(event: "headline", as: Headline.self)
            async let received = first(headlines) { _ in true }
            try await TestHub.trigger(box.hub, event: "headline", channels: ["news"], data: #"{"title":"hello"}"#)
            #expect(try await received.title == "hello")
            await client.disconnect()
            #expect(await client.state == .disconnected)
        }
    }

    @Test func privateAndPresenceThroughTheServerAuthorizerWithMembers() async throws {
        try await TestHub.withBox { box in
            let hub = box.hub
            let alice = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, authorizer: try TestHub.serverAuthorizer(hub, token: "alice-token")))
            await alice.connect()
            let orders = await alice.subscribe("private-orders")
            let room = await alice.subscribe("presence-room")
            try await orders.subscribed()
            try await room.subscribed()
            #expect(room.currentMembers.me?.id == "alice")
            #expect(Set(room.currentMembers.members.keys) == ["alice"])
            struct Info: Decodable { let name: String }
            #expect(try room.currentMembers.me?.decodeInfo(Info.self).name == "Alice")

            let changes = room.members
            let bob = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, authorizer: try TestHub.serverAuthorizer(hub, token: "bob-token")))
            await bob.connect()
            try await bob.subscribe("presence-room").subscribed()
            let added = try await first(changes) { if case .added = $0 { true } else { false } }
            #expect(added == .added(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)))
            #expect(Set(room.currentMembers.members.keys) == ["alice", "bob"])
            #expect(try await TestHub.users(hub, channel: "presence-room") == ["alice", "bob"])

            // A stream ends when the task iterating it is cancelled: take a new one for the next wait.
            let removals = room.members
            await bob.disconnect()
            let removed = try await first(removals) { if case .removed = $0 { true } else { false } }
            #expect(removed == .removed(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)))
            #expect(Set(room.currentMembers.members.keys) == ["alice"])
            #expect(try await TestHub.users(hub, channel: "presence-room") == ["alice"])

            let shipped = orders.events
            try await TestHub.trigger(hub, event: "shipped", channels: ["private-orders"], data: #"{"id":7}"#)
            let event = try await first(shipped) { $0.name == "shipped" }
            #expect(event.data == #"{"id":7}"#)
            await alice.disconnect()
            #expect(room.currentMembers.count == 0)
        }
    }

    @Test func deniedChannelGetsTheEndpointsStatusAndBody() async throws {
        try await TestHub.withBox { box in
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(box.hub.port, authorizer: try TestHub.serverAuthorizer(box.hub, token: "nobody")))
            await client.connect()
            let channel = await client.subscribe("private-secret")
            do {
                try await channel.subscribed()
                Issue.record("an unknown caller must be denied")
            } catch let error as ChannelError {
                #expect(error.qualifiedCode == "channels.auth.httpStatus")
                #expect(error.status == 403)
                guard case .authorization(let authError) = error else { Issue.record("not an authorization error"); return }
                #expect(authError.response?.body.isEmpty == false)
            }
            await client.disconnect()
        }
    }

    @Test func serverRejectionOfABadSignatureIsTyped() async throws {
        try await TestHub.withBox { box in
            let forged = CustomChannelAuthorizer { _, _ in ChannelAuthorization(auth: "\(TestHub.key):" + String(repeating: "ab", count: 32)) }
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(box.hub.port, authorizer: forged))
            await client.connect()
            let channel = await client.subscribe("private-forged")
            do {
                try await channel.subscribed()
                Issue.record("a forged signature must be refused")
            } catch let error as ChannelError {
                #expect(error.qualifiedCode == "channels.server.subscriptionError")
                #expect(error.status == 401)
                #expect(!error.message.contains(String(repeating: "ab", count: 20)))
            }
            await client.disconnect()
        }
    }

    @Test func unknownAppKeyFailsTheConnectionForGood() async throws {
        try await TestHub.withBox { box in
            let client = ChannelClient(key: "no-such-key", options: TestHub.options(box.hub.port))
            await client.connect()
            do {
                _ = try await client.connected()
                Issue.record("an unknown key must fail")
            } catch let error as ChannelClientError {
                #expect(error.closeCode == 4001)
            }
            #expect(await client.state.isTerminal)
        }
    }

    /// 100 restarts in all (`CHANNELS_RESTARTS` sets another number), in four hubs of a quarter
    /// each that run side by side: one hub restarting 100 times took 21 s, the longest test of
    /// the suite, and ended the whole run alone.
    @Test(arguments: 0..<4) func hubRestartsReauthorizeEveryChannelWithTheNewSocketID(quarter: Int) async throws {
        let total = Int(ProcessInfo.processInfo.environment["CHANNELS_RESTARTS"] ?? "") ?? 100
        let restarts = total / 4 + (quarter < total % 4 ? 1 : 0)
        try await TestHub.withBox { box in
            let recording = RecordingAuthorizer(try TestHub.serverAuthorizer(box.hub, token: "alice-token"))
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(box.hub.port, authorizer: recording))
            let names = ["news", "private-a", "private-b", "presence-room", "private-encrypted-c"]
            var channels: [PusherChannel] = []
            for name in names { channels.append(await client.subscribe(name)) }
            await client.connect()
            var socketIDs: [String] = []
            let trace = ProcessInfo.processInfo.environment["CHANNELS_TRACE"] != nil
            let began = ContinuousClock.now
            for round in 0...restarts {
                if trace { print("round \(round) at \(ContinuousClock.now - began)") }
                if round > 0 { try await box.restart() }
                if trace { print("  restarted at \(ContinuousClock.now - began)") }
                let snapshot = channels
                let watch: Task<Void, any Error>? = trace ? Task {
                    // sleep: a diagnostic under CHANNELS_TRACE only: prints where a round stands if it takes over 8 s (cancelled when it ends), not a wait.
                    try await Task.sleep(for: .seconds(8))
                    print("  STUCK? state=\(await client.state) socket=\(await client.socketID ?? "-") channels=\(snapshot.map { "\($0.name):\($0.state)" }) sent=\(await client.sentSubscriptions.suffix(6))")
                } : nil
                defer { watch?.cancel() }
                try await eventually("round \(round): connected on a new socket, every channel subscribed", timeout: .seconds(30)) {
                    guard let socketID = await client.socketID, socketID != socketIDs.last else { return false }
                    return channels.allSatisfy { $0.state.isSubscribed }
                }
                let socketID = try #require(await client.socketID)
                socketIDs.append(socketID)
                let authorizedNow = Set(recording.recorded.filter { $0.socketID == socketID }.map(\.channel))
                #expect(authorizedNow == ["private-a", "private-b", "presence-room", "private-encrypted-c"], "round \(round)")
                #expect(try await TestHub.users(box.hub, channel: "presence-room") == ["alice"])
            }
            #expect(Set(socketIDs).count == restarts + 1)
            // Every subscribe that went out carried the socket id it was signed for: the hub
            // accepted each one (no channel failed), and none was sent for an earlier socket.
            let sent = await client.sentSubscriptions
            #expect(sent.count == names.count * (restarts + 1))
            for (channel, socketID) in sent where channel != "news" {
                #expect(recording.recorded.contains { $0.socketID == socketID && $0.channel == channel })
            }
            await client.disconnect()
        }
    }

    @Test func anAuthorizationForAnEarlierSocketIsNeverSent() async throws {
        try await TestHub.withBox { box in
            let firstSocket = Locked<String?>(nil)
            // Whether the client had given up the first socket's call when its answer came.
            let lateAnswerAbandoned = Locked<Bool?>(nil)
            let release = AsyncStream<Void>.makeStream()
            let hubAuthorizer = try TestHub.serverAuthorizer(box.hub, token: "alice-token")
            let slowFirst = CustomChannelAuthorizer { socketID, channel in
                let isFirst = firstSocket.withLock { current in
                    if current == nil { current = socketID }
                    return current == socketID
                }
                if isFirst {
                    // Ignores cancellation on purpose: answers only when the test says so.
                    await Task.detached { for await _ in release.stream { break } }.value
                    lateAnswerAbandoned.withLock { $0 = Task.isCancelled }
                }
                return try await hubAuthorizer.authorize(socketID: socketID, channelName: channel)
            }
            var options = TestHub.options(box.hub.port, authorizer: slowFirst)
            options.authorizationTimeout = .seconds(30)
            let client = ChannelClient(key: TestHub.key, options: options)
            await client.connect()
            let channel = await client.subscribe("private-slow")
            try await eventually("first authorization started") { firstSocket.withLock { $0 != nil } }
            let oldSocket = try #require(firstSocket.withLock { $0 })
            try await box.restart()
            try await channel.subscribed()
            let newSocket = try #require(await client.socketID)
            #expect(newSocket != oldSocket)
            release.continuation.yield()
            // The positive control: the late answer was dealt with, either returned to a client
            // that had already given the call up (its task cancelled: the answer goes nowhere) or
            // discarded by the client as stale. Sending it, the failure checked below, also ends
            // the wait.
            try await eventually("the late authorization dealt with") {
                switch lateAnswerAbandoned.withLock({ $0 }) {
                case nil: return false
                case true?: return true
                case false?:
                    let sentForOldSocket = await client.sentSubscriptions.contains { $0.socketID == oldSocket }
                    return await client.staleAuthorizationsDiscarded > 0 || sentForOldSocket
                }
            }
            let sent = await client.sentSubscriptions.filter { $0.channel == "private-slow" }
            #expect(sent.map(\.socketID) == [newSocket])
            #expect(channel.state.isSubscribed)
            await client.disconnect()
        }
    }

    @Test func authorizationThatHangsIsRetriedThenFails() async throws {
        try await TestHub.withBox { box in
            let calls = Locked(0)
            let hanging = CustomChannelAuthorizer { _, _ in
                calls.withLock { $0 += 1 }
                // sleep: the authorizer hangs on purpose (ignoring cancellation); the 200 ms authorizationTimeout must end each attempt first.
                await Task.detached { try? await Task.sleep(for: .seconds(30)) }.value
                throw ChannelAuthorizationError.denied(reason: "too late")
            }
            var options = TestHub.options(box.hub.port, authorizer: hanging)
            options.authorizationTimeout = .milliseconds(200)
            options.authorizationRetry = AuthorizationRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(50))
            let client = ChannelClient(key: TestHub.key, options: options)
            await client.connect()
            let channel = await client.subscribe("private-hang")
            let started = ContinuousClock.now
            do {
                try await channel.subscribed()
                Issue.record("must fail")
            } catch let error as ChannelError {
                #expect(error.qualifiedCode == "channels.auth.timedOut")
            }
            #expect(ContinuousClock.now - started < TestTiming.slowed(.seconds(5)))
            #expect(calls.withLock { $0 } == 3)
            await client.disconnect()
        }
    }

    @Test func clientEventsFollowTheRules() async throws {
        try await TestHub.withBox { box in
            let hub = box.hub
            let alice = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, authorizer: try TestHub.serverAuthorizer(hub, token: "alice-token")))
            let bob = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, authorizer: try TestHub.serverAuthorizer(hub, token: "bob-token")))
            await alice.connect()
            await bob.connect()
            let aliceChat = await alice.subscribe("presence-chat")
            let bobChat = await bob.subscribe("presence-chat")
            try await aliceChat.subscribed()
            try await bobChat.subscribed()
            struct Message: Codable, Sendable, Equatable { let text: String }
            let bobEvents = bobChat.events
            async let received = first(bobEvents) { $0.name == "client-message" }
            try await aliceChat.trigger("client-message", data: Message(text: "hi"))
            let event = try await received
            #expect(try event.decode(Message.self) == Message(text: "hi"))
            #expect(event.userID == "alice")

            func rejection(_ body: () async throws -> Void) async -> String? {
                do { try await body(); return nil } catch { return (error as? ChannelError)?.qualifiedCode ?? "\(error)" }
            }
            #expect(await rejection { try await aliceChat.trigger("message", json: "{}") } == "channels.clientEvent.invalidName")
            let news = await alice.subscribe("news")
            try await news.subscribed()
            #expect(await rejection { try await news.trigger("client-x", json: "{}") } == "channels.clientEvent.channelKindNotAllowed")
            let secret = await alice.subscribe("private-encrypted-x")
            #expect(await rejection { try await secret.trigger("client-x", json: "{}") } == "channels.clientEvent.encryptedChannel")
            let pending = await alice.subscribe("private-never")
            await pending.unsubscribe()
            #expect(await rejection { try await pending.trigger("client-x", json: "{}") } == "channels.clientEvent.notSubscribed")
            #expect(await rejection { try await aliceChat.trigger("client-big", json: "\"" + String(repeating: "x", count: 11_000) + "\"") } == "channels.clientEvent.dataTooLarge")
            var codes: [String?] = []
            for _ in 0..<10 { codes.append(await rejection { try await aliceChat.trigger("client-burst", json: "1") }) }
            #expect(codes.contains("channels.clientEvent.rateLimited"))
            await alice.disconnect()
            await bob.disconnect()
        }
    }

    @Test func encryptedEventsAreDecryptedAndBadOnesReportedAfterOneReauthorization() async throws {
        try await TestHub.withBox { box in
            let recording = RecordingAuthorizer(try TestHub.serverAuthorizer(box.hub, token: "alice-token"))
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(box.hub.port, authorizer: recording))
            await client.connect()
            let channel = await client.subscribe("private-encrypted-vault")
            try await channel.subscribed()
            let key = try #require(Data(base64Encoded: try TestHub.signer.sharedSecret(channelName: "private-encrypted-vault")))
            func sealed(_ text: String, key: Data) throws -> String {
                let nonce = (0..<24).map { _ in UInt8.random(in: 0...255) }
                let box = try SecretBox.seal(Array(text.utf8), nonce: nonce, key: Array(key))
                return #"{"nonce":"\#(Data(nonce).base64EncodedString())","ciphertext":"\#(Data(box).base64EncodedString())"}"#
            }
            let events = channel.events
            async let secret = first(events) { $0.name == "secret" }
            try await TestHub.trigger(box.hub, event: "secret", channels: ["private-encrypted-vault"], data: try sealed(#"{"code":42}"#, key: key))
            #expect(try await secret.data == #"{"code":42}"#)

            let callsBefore = recording.recorded.count
            let errors = channel.errors
            async let problem = first(errors) { _ in true }
            try await TestHub.trigger(box.hub, event: "tampered", channels: ["private-encrypted-vault"], data: try sealed("{}", key: Data(repeating: 9, count: 32)))
            let reported = try await problem
            #expect(reported.qualifiedCode == "channels.decryptionFailed")
            #expect(recording.recorded.count == callsBefore + 1)
            #expect(channel.state.isSubscribed)
            await client.disconnect()
        }
    }

    @Test func signInThenServerToUserEvents() async throws {
        try await TestHub.withBox { box in
            let hub = box.hub
            let client = try Self.aliceSigningIn(hub)
            await client.connect()
            let userChannel = try await client.signIn()
            #expect(userChannel.name == "#server-to-user-alice")
            try await userChannel.subscribed()
            let userEvents = userChannel.events
            async let event = first(userEvents) { $0.name == "notice" }
            try await TestHub.trigger(hub, event: "notice", channels: ["#server-to-user-alice"], data: #"{"n":1}"#)
            #expect(try await event.data == #"{"n":1}"#)

            // After a restart the client signs in again with its new socket id.
            let before = try #require(await client.socketID)
            try await box.restart()
            try await eventually("signed in again on a new socket") {
                guard let now = await client.socketID, now != before else { return false }
                return userChannel.state.isSubscribed
            }
            let again = userChannel.bind(event: "notice")
            try await TestHub.trigger(box.hub, event: "notice", channels: ["#server-to-user-alice"], data: #"{"n":2}"#)
            #expect(try await first(again) { _ in true }.data == #"{"n":2}"#)
            await client.disconnect()
        }
    }

    @Test func aTerminatedUserStaysDisconnectedAndTheStateSaysWhy() async throws {
        try await TestHub.withBox { box in
            let hub = box.hub
            let client = try Self.aliceSigningIn(hub)
            await client.connect()
            try await client.signIn().subscribed()

            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/users/alice/terminate_connections", body: "{}")
            #expect(response.status == 200)
            try await eventually("the client failed for good") { await client.state.isTerminal }
            guard case .failed(let error) = await client.state else {
                Issue.record("a terminated connection must fail, not \(await client.state)")
                return
            }
            #expect(error.closeCode == 4009)
            #expect(error.message.contains("terminated"))
            // It does not come back: no reconnect is scheduled as it fails, and the hub, once it
            // has let the terminated connection go, holds no channel of it.
            #expect(await client.reconnectScheduled == false)
            try await eventually("the hub lists no channel") {
                let channels = try await TestHTTP(hub).signed("GET", "/apps/1234/channels")
                return (channels.json["channels"] as? [String: Any])?.isEmpty == true
            }
            #expect(await client.state.isTerminal)
        }
    }

    @Test func cacheChannelsGiveTheAppTheLastEventOrACacheMiss() async throws {
        try await TestHub.withBox { box in
            let hub = box.hub
            try await TestHub.trigger(hub, event: "price", channels: ["cache-full"], data: #"{"v":7}"#)
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port))
            // Subscribed before connecting, so that the first events are bound before they come.
            let full = await client.subscribe("cache-full")
            let empty = await client.subscribe("cache-empty")
            let fullEvents = full.events
            let emptyEvents = empty.events
            async let cached = first(fullEvents) { !$0.name.hasPrefix("pusher:") }
            async let miss = first(emptyEvents) { $0.isCacheMiss }
            await client.connect()
            #expect(try await cached.name == "price")
            #expect(try await cached.data == #"{"v":7}"#)
            #expect(try await miss.channel == "cache-empty")
            #expect(try await miss.name == ChannelEvent.cacheMiss)
            await client.disconnect()
        }
    }

    @Test func deniedSignInAndInvalidChannelNamesAreReported() async throws {
        try await TestHub.withBox { box in
            let authenticator = try ServerUserAuthenticator(endpoint: box.hub.httpURL.appendingPathComponent("pusher/user-auth"), headers: [.authorization: "Bearer nobody"])
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(box.hub.port, userAuthenticator: authenticator))
            let invalid = await client.subscribe("bad name!")
            guard case .failed(.invalidChannelName) = invalid.state else {
                Issue.record("an invalid name must fail at once, not \(invalid.state)")
                return
            }
            await client.connect()
            do {
                _ = try await client.signIn()
                Issue.record("an unknown user must be refused")
            } catch let error as ChannelError {
                #expect(error.qualifiedCode == "channels.auth.httpStatus")
                #expect(error.status == 403)
            }
            await client.disconnect()
        }
    }

    /// A client of the test hub that signs in as Alice through the hub's `/pusher/user-auth`.
    static func aliceSigningIn(_ hub: HubServer) throws -> ChannelClient {
        let authenticator = try ServerUserAuthenticator(endpoint: hub.httpURL.appendingPathComponent("pusher/user-auth"), headers: [.authorization: "Bearer alice-token"])
        return ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, userAuthenticator: authenticator))
    }
}
