import ClearanceServer
import ClearanceTesting
import ClearanceTestSupport
import Foundation
import Testing

@Suite("Hub slow readers and floods", .timeLimit(.minutes(1)))
struct HubSlowReaderTests {
    @Test func aClientThatStopsReadingIsDroppedAndTheHubCarriesOn() async throws {
        let limits = TestHub.limits { $0.connections.maxOutboundBytes = 65_536 }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let http = TestHTTP(hub)
            // A raw socket whose frames nobody reads.
            let stalled = try await Self.stalledSubscriber(hub, channel: "flood")
            defer { stalled.shutdownSocket() }

            var dropped = false
            var calls = 0
            while !dropped, calls < 1_000 {
                calls += 1
                let response = try await http.signed("POST", "/apps/1234/batch_events", body: Self.batch(channel: "flood"))
                #expect(response.status == 200)
                if calls % 10 == 0 {
                    dropped = try await http.signed("GET", "/apps/1234/channels/flood").json["occupied"] as? Bool == false
                }
            }
            #expect(dropped, "the stalled connection was still subscribed after \(calls * 10) events")
            #expect(hub.counters.value(.slowReadersClosed) == 1)

            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "flood")
            await client.disconnect()
        }
    }

    /// A client that reads again soon enough learns why it was closed: `pusher:error` 4100 and
    /// the close frame 4100 ("over capacity": pusher-js reconnects after a backoff), after the
    /// frames it had not read.
    @Test func aSlowReaderThatReadsAgainGets4100() async throws {
        let limits = TestHub.limits {
            $0.connections.maxOutboundBytes = 65_536
            $0.connections.closeTimeout = 10
        }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let http = TestHTTP(hub)
            let stalled = try await Self.stalledSubscriber(hub, channel: "flood")
            defer { stalled.shutdownSocket() }
            var calls = 0
            while hub.counters.value(.slowReadersClosed) == 0, calls < 1_000 {
                calls += 1
                _ = try await http.signed("POST", "/apps/1234/batch_events", body: Self.batch(channel: "flood"))
            }
            #expect(hub.counters.value(.slowReadersClosed) == 1)
            let frames = await stalled.frames(upTo: .max)
            let close = try #require(frames.last)
            #expect(close.opcode == RawWebSocket.Opcode.close.rawValue)
            #expect(Int(close.payload[0]) << 8 | Int(close.payload[1]) == 4100)
            let error = String(decoding: try #require(frames.dropLast().last).payload, as: UTF8.self)
            #expect(error.contains(#""event":"pusher:error""#) && error.contains(#""code":4100"#), "\(error)")
            // Every frame before it is a whole event: nothing was cut in the middle.
            #expect(frames.dropLast(2).dropFirst(2).allSatisfy { String(decoding: $0.payload, as: UTF8.self).hasPrefix(#"{"event":"bulk""#) })
        }
    }

    /// A raw WebSocket subscribed to `channel` that will not read (until the test says so).
    static func stalledSubscriber(_ hub: HubServer, channel: String) async throws -> RawWebSocket {
        let stalled = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/\(TestHub.key)?protocol=7")
        try stalled.send(opcode: .text, payload: Array(#"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#.utf8))
        try await eventually("the stalled client subscribed") {
            try await TestHTTP(hub).signed("GET", "/apps/1234/channels/\(channel)").json["occupied"] as? Bool == true
        }
        return stalled
    }

    /// Ten events of 10,000 bytes on `channel`, as one `batch_events` body.
    static func batch(channel: String) -> String {
        let item = #"{"name":"bulk","channel":"\#(channel)","data":"\#(String(repeating: "x", count: 10_000))"}"#
        return #"{"batch":[\#(Array(repeating: item, count: 10).joined(separator: ","))]}"#
    }

    @Test func aClientFloodingMessagesIsServedInOrderWithoutLosingAny() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            for _ in 0..<2_000 {
                client.send(#"{"event":"pusher:ping","data":{}}"#)
            }
            var pongs = 0
            while pongs < 2_000, let frame = await client.next(timeout: .seconds(10)) {
                if frame.event == "pusher:pong" { pongs += 1 }
            }
            #expect(pongs == 2_000)
            await client.disconnect()
        }
    }
}

@Suite("Hub unsent bytes across connections", .timeLimit(.minutes(1)))
struct HubTotalOutboundTests {
    /// Clients that stop reading cannot together hold more than `maxTotalOutboundBytes`, however
    /// many they are; a client that reads is not affected, and once they are gone nothing stays
    /// counted.
    @Test func nonReadersTogetherArePastTheHubsLimitAndAReaderIsNot() async throws {
        let limits = TestHub.limits {
            $0.connections.maxOutboundBytes = 1_048_576
            $0.connections.maxTotalOutboundBytes = 1_048_576
        }
        let logs = LogCapture()
        let hub = try await TestHub.start(TestHub.configuration(limits: limits), logger: logs.logger("hub"))
        try await withCleanup {
            let (reader, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(reader, socketID: socketID, channel: "flood")
            var stalled: [RawWebSocket] = []
            defer { stalled.forEach { $0.shutdownSocket() } }
            for _ in 0..<4 { stalled.append(try await HubSlowReaderTests.stalledSubscriber(hub, channel: "flood")) }
            try await eventually("five subscribers") {
                try await TestHTTP(hub).signed("GET", "/apps/1234/channels/flood", query: ["info": "subscription_count"]).json["subscription_count"] as? Int == 5
            }
            var calls = 0
            while hub.counters.value(.slowReadersClosed) < 4, calls < 2_000 {
                calls += 1
                _ = try await TestHTTP(hub).signed("POST", "/apps/1234/batch_events", body: HubSlowReaderTests.batch(channel: "flood"))
                // The reader keeps up.
                while let frame = await reader.next(timeout: .milliseconds(1)), frame.event == "bulk" {}
            }
            #expect(hub.counters.value(.slowReadersClosed) == 4)
            #expect(logs.text.contains("maxTotalOutboundBytes 1048576"), "the hub's limit closed them, before their own")
            reader.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await reader.next(event: "pusher:pong")
            try await eventually("nothing counted once they are gone") { hub.counters.gauge(.unsentBytes) == 0 }
            await reader.disconnect()
            // A socket is released when it closes, its subscriptions when the hub has let go of
            // the connection, a moment later.
            try await eventually("no socket and no subscription left") {
                hub.counters.gauge(.openSockets) == 0 && hub.counters.gauge(.subscriptions) == 0
            }
        } cleanup: {
            await hub.stop()
        }
    }
}
