import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// A real hub on a real socket against what a hostile or broken client sends: every test ends
/// by checking that the hub is still up and serves a good client (subscribe, then receive an
/// event triggered through the HTTP API), and every HTTP answer to bad input is a 4xx, never a 5xx.
@Suite("Hub against hostile input", .timeLimit(.minutes(1)))
struct HubHostileInputTests {
    // MARK: WebSocket frames

    @Test func deeplyNestedFramesAreAnsweredWithAnError() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            let depth = 15_000  // 30,000 bytes: within the frame limit
            client.send(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
            #expect(try await client.next(event: "pusher:error").event == "pusher:error")
            let nested = String(repeating: #"{"a":"#, count: 5_000) + "1" + String(repeating: "}", count: 5_000)
            client.send(#"{"event":"pusher:subscribe","data":{"channel":\#(nested)}}"#)
            #expect(try await client.next(event: "pusher:error").event == "pusher:error")
            client.send(#"{"event":"client-x","channel":"private-a","data":\#(nested)}"#)
            #expect(try await client.next(event: "pusher:error").event == "pusher:error")
            await client.disconnect()
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test(arguments: [
        #"a\ud800b"#, #"\udfff"#, #"\ud800\ud800"#, #"a\u0000b"#, #"private-\u0000"#, #"presence-\ud83d"#, #"\u0000"#,
    ])
    func loneSurrogatesAndNULInChannelNamesAreRefused(_ escapedName: String) async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(#"{"event":"pusher:subscribe","data":{"channel":"\#(escapedName)","auth":"test-key:00"}}"#)
            let refusal = try #require(await client.next())
            #expect(["pusher:subscription_error", "pusher:error"].contains(refusal.event ?? ""), "\(refusal)")
            if refusal.event == "pusher:subscription_error" {
                #expect((400..<500).contains(refusal.dataObject["status"] as? Int ?? 0), "\(refusal)")
            }
            await client.disconnect()
            let body = #"{"name":"e","channels":["\#(escapedName)"],"data":"x"}"#
            let answer = try await TestHTTP(hub).signed("POST", TestHub.restSigner.eventsPath, body: body)
            #expect(answer.status == 400, "\(answer.body)")
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func invalidUTF8AndBinaryFramesAreRefused() async throws {
        try await TestHub.with { hub in
            let socket = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/\(TestHub.key)?protocol=7")
            // A lone surrogate encoded in UTF-8 (ED A0 80) and a NUL, in a text frame.
            let frame = Array(#"{"event":"pusher:subscribe","data":{"channel":"a"#.utf8) + [0xED, 0xA0, 0x80, 0x00] + Array(#""}}"#.utf8)
            try socket.send(opcode: .text, payload: frame)
            try socket.send(opcode: .binary, payload: [0xFF, 0x00, 0xFE])
            let frames = await socket.frames(upTo: 3)
            // connection_established, then a refusal of each (or a close for the invalid text).
            #expect(frames.count >= 2)
            #expect(!frames.dropFirst().contains { String(decoding: $0.payload, as: UTF8.self).contains("subscription_succeeded") })
            socket.shutdownSocket()
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func anOversizedFrameClosesTheConnectionWith1009() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(#"{"event":"client-x","channel":"private-a","data":""# + String(repeating: "x", count: 40_000) + #""}"#)
            #expect(try await client.closeCode() == 1009)
            // A frame that announces 2^62 bytes and sends none is refused before any is read.
            let socket = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/\(TestHub.key)?protocol=7")
            let huge: [UInt8] = [0x81, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]
            try socket.sendRaw(huge)
            let frames = await socket.frames(upTo: .max)
            #expect(frames.last?.opcode == RawWebSocket.Opcode.close.rawValue)
            try await Self.servesAGoodClient(hub)
        }
    }

    // MARK: Floods

    @Test func subscriptionsPastTheChannelLimitAreRefusedWith403() async throws {
        try await TestHub.with(Self.configuration(channels: 20, changesPerSecond: 100_000)) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            for index in 0..<30 { client.send(TestHub.subscribeFrame(channel: "room-\(index)", socketID: socketID)) }
            var succeeded = 0
            var refused: [ReceivedFrame] = []
            while succeeded + refused.count < 30, let frame = await client.next() {
                if frame.event == "pusher_internal:subscription_succeeded" { succeeded += 1 }
                if frame.event == "pusher:subscription_error" { refused.append(frame) }
            }
            #expect(succeeded == 20)
            #expect(refused.count == 10)
            #expect(refused.allSatisfy { $0.dataObject["status"] as? Int == 403 && $0.dataObject["type"] as? String == "LimitReached" })
            #expect((refused.first?.dataObject["error"] as? String)?.contains("maximum of 20 channels") == true)
            // Subscribing again to a channel it has is not one more; leaving one makes room.
            client.send(TestHub.subscribeFrame(channel: "room-0", socketID: socketID))
            client.send(TestHub.frame(event: "pusher:unsubscribe", data: ["channel": "room-1"]))
            try await TestHub.subscribe(client, socketID: socketID, channel: "room-new")
            await client.disconnect()
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func aFloodOfSubscribesIsRateLimitedWith429() async throws {
        try await TestHub.with(Self.configuration(channels: 20, changesPerSecond: 5)) { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            let start = ContinuousClock.now
            // Subscribe, then leave again: only the rate, not the channel limit, can refuse.
            for index in 0..<60 {
                client.send(TestHub.subscribeFrame(channel: "flood-\(index)", socketID: socketID))
                client.send(TestHub.frame(event: "pusher:unsubscribe", data: ["channel": "flood-\(index)"]))
            }
            var succeeded = 0
            var limited: [ReceivedFrame] = []
            while succeeded + limited.count < 60, let frame = await client.next() {
                if frame.event == "pusher_internal:subscription_succeeded" { succeeded += 1 }
                if frame.event == "pusher:subscription_error" { limited.append(frame) }
            }
            let seconds = Double((ContinuousClock.now - start) / .milliseconds(1)) / 1_000
            #expect(succeeded + limited.count == 60)
            // The burst of 20 changes is 10 subscribes and 10 unsubscribes; then 5 a second.
            #expect(succeeded >= 10 && Double(succeeded) <= 10 + 5 * (seconds + 1), "\(succeeded) in \(seconds) s")
            #expect(limited.count > 0)
            #expect(limited.allSatisfy { $0.dataObject["status"] as? Int == 429 && $0.dataObject["type"] as? String == "LimitReached" })
            await client.disconnect()
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func presenceChurnIsBoundedByTheSameRate() async throws {
        try await TestHub.with(Self.configuration(channels: 10, changesPerSecond: 5)) { hub in
            let channel = "presence-churn"
            let (observer, observerID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(observer, socketID: observerID, channel: channel, channelData: TestHub.presenceData("observer"))
            let (churner, churnerID) = try await TestHub.connect(hub)
            let join = TestHub.subscribeFrame(channel: channel, socketID: churnerID, channelData: TestHub.presenceData("churner"))
            let leave = TestHub.frame(event: "pusher:unsubscribe", data: ["channel": channel])
            let start = ContinuousClock.now
            for _ in 0..<100 {
                churner.send(join)
                churner.send(leave)
            }
            // The churner's last word: a ping, answered once every frame before it was handled.
            churner.send(TestHub.frame(event: "pusher:ping", data: [String: String]()))
            _ = try await churner.next(event: "pusher:pong")
            let seconds = Double((ContinuousClock.now - start) / .milliseconds(1)) / 1_000
            var added = 0
            while let frame = await observer.next(timeout: .milliseconds(300)) {
                if frame.event == "pusher_internal:member_added" { added += 1 }
            }
            #expect(added >= 1)
            // A burst of 10 changes (5 joins, 5 leaves), then 5 changes a second.
            #expect(Double(added) <= 5 + 5 * (seconds + 1), "\(added) joins in \(seconds) s")
            await churner.disconnect()
            await observer.disconnect()
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func aFloodOfGarbageFramesIsAnsweredAndTheHubStaysUp() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            let garbage = ["{", "null", "[]", #"{"event":1}"#, #"{"event":"pusher:subscribe"}"#, #"{"event":"pusher:subscribe","data":"x"}"#,
                           #"{"event":"pusher:signin","data":{"auth":1}}"#, #"{"event":"client-x","channel":1,"data":"x"}"#]
            for index in 0..<2_000 { client.send(garbage[index % garbage.count]) }
            var errors = 0
            while errors < 2_000, let frame = await client.next() {
                if frame.event == "pusher:error" { errors += 1 }
            }
            #expect(errors == 2_000)
            await client.disconnect()
            try await Self.servesAGoodClient(hub)
        }
    }

    // MARK: Stalled connections

    @Test func stalledConnectionsAreClosedWithinTheIdleTimeout() async throws {
        let limits = TestHub.limits { $0.httpAPI.httpIdleTimeout = 0.5 }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let stalls: [String] = [
                "",  // connects and says nothing
                "GET /apps/1234/channels HTTP/1.1\r\nHost: x\r\n",  // half a head
                "POST /apps/1234/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"name\":",  // half a body
                "GET /app/\(TestHub.key)?protocol=7 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",  // half an upgrade
            ]
            // 50 of each at once: none may outlive the timeout.
            let sockets = try (0..<200).map { index in
                let socket = try RawSocket(host: "127.0.0.1", port: hub.port)
                try socket.sendAll(Array(stalls[index % stalls.count].utf8))
                return socket
            }
            let closings = await withTaskGroup(of: Duration?.self) { group in
                for socket in sockets { group.addTask { await socket.untilClosed(timeout: .seconds(10))?.sinceConnected } }
                return await group.reduce(into: [Duration?]()) { $0.append($1) }
            }
            #expect(closings.allSatisfy { $0 != nil }, "\(closings.filter { $0 == nil }.count) stalled connections still open after 10 s")
            #expect(closings.compactMap { $0 }.allSatisfy { $0 >= .milliseconds(450) }, "closed before the timeout")
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterItsAnswer() async throws {
        let limits = TestHub.limits { $0.httpAPI.httpIdleTimeout = 0.5 }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let socket = try RawSocket(host: "127.0.0.1", port: hub.port)
            try socket.sendAll(Array("GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let answer = try #require(await socket.untilClosed(timeout: .seconds(10)))
            #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 404"))
            #expect(answer.after >= .milliseconds(450))
        }
    }

    // MARK: HTTP API

    @Test(arguments: [
        "not json", "", "[]", "null", #"{"name":1}"#, #"{"name":"e","channels":"x","data":"x"}"#,
        #"{"name":"e","channels":[],"data":"x"}"#, #"{"name":"e","channel":"a","data":{"x":1}}"#,
        #"{"name":"","channel":"a","data":"x"}"#, #"{"name":"e","channel":"a","data":"x","socket_id":"\u0000"}"#,
        String(repeating: "[", count: 20_000), #"{"name":"e","channel":"a","data":"x""#, "{\"name\":\"e\u{0}\",\"channel\":\"a\",\"data\":\"x\"}",
        #"{"name":"e","channels":[\#((0..<1_000).map { "\"c\($0)\"" }.joined(separator: ","))],"data":"x"}"#,
        #"{"name":"e","channel":"a","data":""# + String(repeating: "x", count: 20_000) + #""}"#,
        #"{"batch":[\#(Array(repeating: #"{"name":"e","channel":"a","data":"x"}"#, count: 50).joined(separator: ","))]}"#,
    ])
    func signedButHostileBodiesAreRefusedWith4xx(_ body: String) async throws {
        try await TestHub.with { hub in
            let path = body.hasPrefix(#"{"batch""#) ? TestHub.restSigner.batchEventsPath : TestHub.restSigner.eventsPath
            let answer = try await TestHTTP(hub).signed("POST", path, body: body)
            #expect((400..<500).contains(answer.status), "\(answer.status) \(answer.body)")
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test func aBodyPastTheLimitIsRefusedWith413() async throws {
        try await TestHub.with { hub in
            let body = #"{"name":"e","channel":"a","data":""# + String(repeating: "x", count: 300_000) + #""}"#
            let answer = try await TestHTTP(hub).signed("POST", TestHub.restSigner.eventsPath, body: body)
            #expect(answer.status == 413, "\(answer.status)")
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test(arguments: [
        "/apps/1234/../1234/events", "/apps/%2e%2e/1234/events", "/apps/..%2f1234/events", "/apps/9999/events", "/apps//events",
        "/apps/1234/channels/%00", "/apps/1234/channels/a%ED%A0%80", "/apps/1234/channels/\(String(repeating: "c", count: 2_000))",
        "/apps/1234/channels/a%2Fb/users", "/apps/1234/channels/..%2F..%2Fetc%2Fpasswd", "/apps/\(String(repeating: "9", count: 400))/channels",
        "/apps/1234/channels/presence-x/users/../../channels", "/apps/%ff%fe/channels", "/apps/1234/events%00",
    ])
    func signedButHostilePathsAreRefusedWith4xx(_ path: String) async throws {
        try await TestHub.with { hub in
            let method = path.hasSuffix("events") ? "POST" : "GET"
            let body = method == "POST" ? Data(#"{"name":"e","channel":"a","data":"x"}"#.utf8) : nil
            let signature = try TestHub.restSigner.sign(method: method, path: path, body: body)
            let status = try await Self.rawStatus(hub, method: method, target: path + "?" + signature.percentEncodedQuery, body: body)
            #expect((400..<500).contains(status), "\(status) for \(path)")
            try await Self.servesAGoodClient(hub)
        }
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "POST /apps/1234/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "GARBAGE\r\n\r\n",
        "GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\n\(String(repeating: "X-A: b\r\n", count: 10_000))\r\n",
    ])
    func malformedHTTPIsRefusedWithoutA5xx(_ request: String) async throws {
        try await TestHub.with(TestHub.configuration(limits: TestHub.limits { $0.httpAPI.httpIdleTimeout = 2 })) { hub in
            let socket = try RawSocket(host: "127.0.0.1", port: hub.port)
            try? socket.sendAll(Array(request.utf8))
            let answer = try #require(await socket.httpResponse(timeout: .seconds(10)))
            #expect(!answer.hasPrefix("HTTP/1.1 5"), "\(answer.prefix(40))")
            try await Self.servesAGoodClient(hub)
        }
    }

    // A first request that does not parse is answered 400 and closed at once: its socket is not
    // held until the idle timeout (an hour here, so that only the answer can have closed it).
    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "GARBAGE\r\n\r\n",
        "GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 3\r\n\r\nabc",
    ])
    func aFirstRequestThatDoesNotParseIsAnswered400AndClosedAtOnce(_ request: String) async throws {
        let limits = TestHub.limits {
            $0.httpAPI.httpIdleTimeout = 3_600
            $0.httpAPI.httpRequestTimeout = 3_600
        }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let socket = try RawSocket(host: "127.0.0.1", port: hub.port)
            try? socket.sendAll(Array(request.utf8))
            let answer = try #require(await socket.untilClosed(timeout: .seconds(10)), "the hub closes the connection")
            let text = String(decoding: answer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(text.prefix(60))")
            #expect(text.lowercased().contains("connection: close"), "\(text.prefix(120))")
            #expect(hub.counters.value(.malformedRequestsRefused) == 1)
            try await Self.servesAGoodClient(hub)
        }
    }

    // MARK: Auth endpoints

    @Test(arguments: [
        "", "=", "&&&", "%", "%zz", "socket_id", "socket_id=&channel_name=", "socket_id=1.1&channel_name=private-a&socket_id=2.2",
        "socket_id=1.1&channel_name=private-a%00", "socket_id=1.1&channel_name=private-%ED%A0%80", "socket_id=1.1&channel_name[x]=private-a",
        "socket_id=1.1&channel_name=presence-a&channel_data=%7B%22user_id%22%3A1%7D", "socket_id=%00.%00&channel_name=private-a",
        "socket_id=1.1&channel_name=" + String(repeating: "private-", count: 30_000),
        "socket_id=1.1&channel_name=private-a&" + String(repeating: "x=1&", count: 20_000),
        "socket_id=1.1&" + String(repeating: "channel_name[0][0]", count: 1_000) + "=a",
    ])
    func oddAuthEndpointBodiesAreRefusedWith4xx(_ body: String) async throws {
        try await TestHub.with { hub in
            for path in ["/pusher/auth", "/pusher/user-auth"] {
                // A stranger is refused whatever the body; a signed-in user gets a 4xx, or an
                // answer when the fields it needs are good (user-auth reads no channel; a
                // presence channel's data is the server's, whatever the client sent).
                let stranger = try await TestHTTP(hub).form(path, body)
                #expect((400..<500).contains(stranger.status), "\(stranger.status) for \(path) \(body.prefix(60))")
                let user = try await TestHTTP(hub).form(path, body, headers: ["Authorization": "Bearer \(TestHub.alice.token)"])
                #expect((400..<500).contains(user.status) || user.status == 200 && user.json["auth"] is String,
                        "\(user.status) for \(path) \(body.prefix(60)): \(user.body.prefix(300))")
            }
            try await Self.servesAGoodClient(hub)
        }
    }

    // MARK: Helpers

    /// The test hub with these subscription limits (the channel limit is also the burst).
    static func configuration(channels: Int, changesPerSecond: Int) -> HubConfiguration {
        TestHub.configuration(limits: TestHub.limits {
            $0.channels.maxChannelsPerConnection = channels
            $0.channels.subscriptionChangesPerSecond = changesPerSecond
        })
    }

    /// The hub is up and serves a good client: it subscribes, and receives an event triggered
    /// through the HTTP API.
    static func servesAGoodClient(_ hub: HubServer) async throws {
        let (client, socketID) = try await TestHub.connect(hub)
        try await TestHub.subscribe(client, socketID: socketID, channel: "private-after-the-storm")
        try await TestHub.trigger(hub, event: "still-here", channels: ["private-after-the-storm"], data: "ok")
        let event = try await client.next(event: "still-here")
        #expect(event.rawData as? String == "ok")
        await client.disconnect()
    }

    /// The status code of a request written byte for byte (paths a URL type would normalise).
    static func rawStatus(_ hub: HubServer, method: String, target: String, body: Data?) async throws -> Int {
        let socket = try RawSocket(host: "127.0.0.1", port: hub.port)
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        try socket.sendAll(Array((request + "\r\n").utf8) + Array(body ?? Data()))
        let answer = try #require(await socket.untilClosed(timeout: .seconds(10)))
        let statusLine = String(decoding: answer.bytes.prefix(12), as: UTF8.self)
        return Int(statusLine.dropFirst(9).prefix(3)) ?? 0
    }
}
