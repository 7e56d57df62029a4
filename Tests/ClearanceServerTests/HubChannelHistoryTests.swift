import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Connection recovery on one hub, as a client sees it on the wire: positions on every event of a
/// channel with a history, and `pusher:subscribe` with `resume` answered `recovered: true` and the
/// missed events, or `recovered: false`.
@Suite("Hub channel history", .timeLimit(.minutes(1)))
struct HubChannelHistoryTests {
    private static func configuration(size: Int = 300, ttl: Double = 120, channels: [String]? = nil) -> HubConfiguration {
        TestHub.configuration { $0.history = ChannelHistoryConfiguration(size: size, ttl: ttl, channels: channels) }
    }

    /// `pusher:subscribe` for `channel`, signed unless `auth` is given, resuming from `resume`.
    private static func subscribeFrame(channel: String, socketID: String, resume: (stream: String, serial: Int)?, auth: String? = nil) -> String {
        var data: [String: Any] = ["channel": channel]
        if let auth {
            data["auth"] = auth
        } else if ChannelNameKind(channelName: channel).requiresAuthorization {
            data["auth"] = try! TestHub.signer.authorizeChannel(socketID: socketID, channelName: channel, channelData: nil).auth
        }
        if let resume { data["resume"] = ["stream": resume.stream, "serial": resume.serial] }
        return TestHub.frame(event: "pusher:subscribe", data: data)
    }

    /// Connects, subscribes (resuming from `resume`) and returns the client and its `subscription_succeeded`.
    private static func subscribe(
        _ hub: HubServer, channel: String, resume: (stream: String, serial: Int)? = nil
    ) async throws -> (TestWebSocketClient, ReceivedFrame) {
        let (client, socketID) = try await TestHub.connect(hub)
        client.send(subscribeFrame(channel: channel, socketID: socketID, resume: resume))
        return (client, try await client.next(event: "pusher_internal:subscription_succeeded", channel: channel))
    }

    /// Triggers through the signed HTTP API and returns the answer's JSON.
    private static func trigger(_ hub: HubServer, channels: [String], data: String) async throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: ["name": "e", "channels": channels, "data": data], options: [.sortedKeys])
        let result = try await TestHTTP(hub).signed("POST", TestHub.restSigner.eventsPath, body: String(decoding: body, as: UTF8.self))
        try #require(result.status == 200, "trigger answered \(result.status): \(result.body)")
        return result.json
    }

    /// The next `count` frames, in order (none skipped).
    private static func frames(_ count: Int, from client: TestWebSocketClient) async throws -> [ReceivedFrame] {
        var frames: [ReceivedFrame] = []
        for _ in 0..<count { frames.append(try #require(await client.next())) }
        return frames
    }

    @Test func everyEventCarriesItsSerialAndStreamAndTheAPIAnswersTheSerial() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            let (client, succeeded) = try await Self.subscribe(hub, channel: "orders")
            let stream = try #require(succeeded.stream)
            #expect(succeeded.serial == 0)
            #expect(succeeded.recovered == nil && !succeeded.has("recovered"), "no resume, no recovered")

            for index in 1...3 {
                let answer = try await Self.trigger(hub, channels: ["orders"], data: "\(index)")
                #expect((answer["channels"] as? [String: Any])?["orders"] as? [String: Int] == ["serial": index])
                let event = try await client.next(event: "e")
                #expect(event.serial == index)
                #expect(event.stream == stream)
                #expect(event.rawData as? String == "\(index)")
            }
            // A later subscriber starts at the channel's last serial.
            let (late, lateSucceeded) = try await Self.subscribe(hub, channel: "orders")
            #expect(lateSucceeded.serial == 3)
            #expect(lateSucceeded.stream == stream)
            for client in [client, late] { await client.disconnect() }
        }
    }

    @Test func aResumeAfterFiftyMissedEventsGetsExactlyThoseInOrderThenLiveEvents() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            let (first, succeeded) = try await Self.subscribe(hub, channel: "orders")
            let stream = try #require(succeeded.stream)
            _ = try await Self.trigger(hub, channels: ["orders"], data: "1")
            let last = try await first.next(event: "e")
            #expect(last.serial == 1)
            await first.disconnect()

            for index in 2...51 { _ = try await Self.trigger(hub, channels: ["orders"], data: "\(index)") }
            let (back, resumed) = try await Self.subscribe(hub, channel: "orders", resume: (stream, 1))
            #expect(resumed.recovered == true)
            #expect(resumed.stream == stream)
            #expect(resumed.serial == 51)
            let replay = try await Self.frames(50, from: back)
            #expect(replay.map(\.serial) == Array(2...51))
            #expect(replay.map { $0.rawData as? String } == (2...51).map { "\($0)" })
            _ = try await Self.trigger(hub, channels: ["orders"], data: "52")
            let live = try #require(await back.next())
            #expect(live.serial == 52)
            #expect(try await back.unexpectedFrameBeforePong() == nil, "each event once")

            // Nothing missed: recovered, no event.
            await back.disconnect()
            let (again, recovered) = try await Self.subscribe(hub, channel: "orders", resume: (stream, 52))
            #expect(recovered.recovered == true)
            #expect(try await again.unexpectedFrameBeforePong() == nil)
            await again.disconnect()
        }
    }

    @Test func aResumeThatCannotBeWholeIsToldSoAndGetsNoEvent() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(Self.configuration(size: 10, ttl: 60), clock: clock) { hub in
            let (first, succeeded) = try await Self.subscribe(hub, channel: "orders")
            let stream = try #require(succeeded.stream)
            await first.disconnect()
            for index in 1...20 { _ = try await Self.trigger(hub, channels: ["orders"], data: "\(index)") }

            let cases: [(String, (stream: String, serial: Int))] = [
                ("beyond size", (stream, 5)), ("another stream", ("elsewhere-1", 15)), ("ahead of the channel", (stream, 21)),
            ]
            for (what, position) in cases {
                let (client, answer) = try await Self.subscribe(hub, channel: "orders", resume: position)
                #expect(answer.recovered == false, "\(what)")
                #expect(answer.stream == stream, "\(what): the current stream")
                #expect(answer.serial == 20, "\(what): the current serial")
                #expect(try await client.unexpectedFrameBeforePong() == nil, "\(what): never a partial replay")
                await client.disconnect()
            }

            // Within the ttl the last ten recover; past it they do not, checked at the resume.
            let (within, kept) = try await Self.subscribe(hub, channel: "orders", resume: (stream, 15))
            #expect(kept.recovered == true)
            #expect(try await Self.frames(5, from: within).map(\.serial) == Array(16...20))
            await within.disconnect()
            await clock.advance(by: .seconds(60))
            let (late, expired) = try await Self.subscribe(hub, channel: "orders", resume: (stream, 15))
            #expect(expired.recovered == false)
            #expect(try await late.unexpectedFrameBeforePong() == nil)
            await late.disconnect()
        }
    }

    @Test func aResumeOnAPrivateChannelIsAuthorizedLikeAnySubscription() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            let (first, succeeded) = try await Self.subscribe(hub, channel: "private-orders")
            let stream = try #require(succeeded.stream)
            await first.disconnect()
            _ = try await Self.trigger(hub, channels: ["private-orders"], data: "secret")

            let (client, socketID) = try await TestHub.connect(hub)
            client.send(Self.subscribeFrame(channel: "private-orders", socketID: socketID, resume: (stream, 0), auth: "\(TestHub.key):0000"))
            let refused = try #require(await client.next())
            #expect(refused.event == "pusher:subscription_error")
            #expect(try await client.unexpectedFrameBeforePong() == nil, "no replay without authorization")
            await client.disconnect()
        }
    }

    @Test func channelsWithoutAHistoryIgnoreAResumeAndPresenceChannelsHaveNone() async throws {
        try await TestHub.with(Self.configuration(channels: ["orders-"])) { hub in
            let (client, succeeded) = try await Self.subscribe(hub, channel: "news", resume: ("a-1", 3))
            #expect(!succeeded.has("stream") && !succeeded.has("serial") && !succeeded.has("recovered"))
            _ = try await Self.trigger(hub, channels: ["news"], data: "1")
            let event = try await client.next(event: "e")
            #expect(!event.has("serial") && !event.has("stream"))
            #expect(try await Self.trigger(hub, channels: ["news"], data: "2").isEmpty, "the API answers {} as before")

            let (member, socketID) = try await TestHub.connect(hub)
            let presence = try await TestHub.subscribe(member, socketID: socketID, channel: "presence-orders-1", channelData: TestHub.presenceData("alice"))
            #expect(!presence.has("stream"))
            for client in [client, member] { await client.disconnect() }
        }
    }

    @Test func clientEventsAreKeptAndNumberedWithTheServersEvents() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            let (sender, senderID) = try await TestHub.connect(hub)
            let succeeded = try await TestHub.subscribe(sender, socketID: senderID, channel: "private-chat")
            let stream = try #require(succeeded.stream)
            let (watcher, watcherID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(watcher, socketID: watcherID, channel: "private-chat")
            _ = try await Self.trigger(hub, channels: ["private-chat"], data: "server")
            sender.send(TestHub.frame(event: "client-typing", channel: "private-chat", data: ["x": 1]))
            let server = try await watcher.next(event: "e")
            let typing = try await watcher.next(event: "client-typing")
            #expect(server.serial == 1)
            #expect(typing.serial == 2)
            await watcher.disconnect()

            let (back, resumed) = try await Self.subscribe(hub, channel: "private-chat", resume: (stream, 0))
            #expect(resumed.recovered == true)
            #expect(try await Self.frames(2, from: back).map(\.event) == ["e", "client-typing"])
            for client in [sender, back] { await client.disconnect() }
        }
    }

    @Test func batchEventsAnswerEachEventsSerial() async throws {
        try await TestHub.with(Self.configuration(channels: ["orders"])) { hub in
            let batch: [[String: Any]] = [
                ["name": "e", "channel": "orders", "data": "1"], ["name": "e", "channel": "news", "data": "2"],
                ["name": "e", "channel": "orders", "data": "3"],
            ]
            let body = try JSONSerialization.data(withJSONObject: ["batch": batch], options: [.sortedKeys])
            let result = try await TestHTTP(hub).signed("POST", TestHub.restSigner.batchEventsPath, body: String(decoding: body, as: UTF8.self))
            #expect(result.status == 200)
            let answers = try #require(result.json["batch"] as? [[String: Any]])
            #expect(answers.map { $0["serial"] as? Int } == [1, nil, 2])
        }
    }

    @Test func aResumeThatIsNotAPositionIsAnErrorAndTheConnectionStays() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            let (client, _) = try await TestHub.connect(hub)
            for resume: Any in [["stream": "a-1"], ["stream": "a-1", "serial": -1], ["stream": "a-1", "serial": "3"], "a-1:3", ["stream": 3, "serial": 1]] {
                client.send(TestHub.frame(event: "pusher:subscribe", data: ["channel": "orders", "resume": resume]))
                let error = try #require(await client.next())
                #expect(error.event == "pusher:error")
                #expect((error.dataObject["message"] as? String)?.contains("'resume'") == true)
            }
            #expect(try await client.unexpectedFrameBeforePong() == nil)
            await client.disconnect()
        }
    }

    @Test func aReloadTurnsAHistoryOnAndOffWithoutARestart() async throws {
        let reloader = HubReloader()
        let plain = TestHub.configuration()
        let hub = try await HubServer.start(plain, logger: TestHub.quietLogger, reloader: reloader)
        try await withCleanup {
            _ = try await Self.trigger(hub, channels: ["orders"], data: "before")
            var keeping = plain
            keeping.apps[0].history = ChannelHistoryConfiguration(size: 10, ttl: 60)
            _ = try await reloader.reload(keeping)
            let (client, succeeded) = try await Self.subscribe(hub, channel: "orders")
            let stream = try #require(succeeded.stream, "the reloaded app keeps a history")
            #expect(succeeded.serial == 0, "events before the reload were not kept")
            #expect(try await Self.trigger(hub, channels: ["orders"], data: "1")["channels"] != nil)
            #expect(try await client.next(event: "e").serial == 1)

            _ = try await reloader.reload(plain)
            #expect(try await Self.trigger(hub, channels: ["orders"], data: "2").isEmpty, "no serial any more")
            let plainEvent = try await client.next(event: "e")
            #expect(!plainEvent.has("serial") && !plainEvent.has("stream"))
            let (late, lateSucceeded) = try await Self.subscribe(hub, channel: "orders", resume: (stream, 1))
            #expect(!lateSucceeded.has("recovered") && !lateSucceeded.has("stream"), "a resume is an ordinary subscription now")
            for client in [client, late] { await client.disconnect() }
        } cleanup: {
            await hub.stop()
        }
    }
}
