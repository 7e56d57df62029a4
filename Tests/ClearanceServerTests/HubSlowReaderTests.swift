import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

@Suite("Hub slow readers and floods", .timeLimit(.minutes(1)))
struct HubSlowReaderTests {
    @Test func aClientThatStopsReadingIsDroppedAndTheHubCarriesOn() async throws {
        let limits = TestHub.limits { $0.maxQueuedFrames = 16 }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let http = TestHTTP(hub)
            // A raw socket whose frames nobody reads.
            let stalled = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/\(TestHub.key)?protocol=7")
            defer { stalled.shutdownSocket() }
            try stalled.send(opcode: .text, payload: Array(#"{"event":"pusher:subscribe","data":{"channel":"flood"}}"#.utf8))
            var occupied = false
            for _ in 0..<100 where !occupied {
                occupied = try await http.signed("GET", "/apps/1234/channels/flood").json["occupied"] as? Bool == true
                if !occupied { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(occupied)

            let data = String(repeating: "x", count: 10_000)
            let item = #"{"name":"bulk","channel":"flood","data":"\#(data)"}"#
            let batch = #"{"batch":[\#(Array(repeating: item, count: 10).joined(separator: ","))]}"#
            var dropped = false
            var calls = 0
            while !dropped, calls < 1_000 {
                calls += 1
                let response = try await http.signed("POST", "/apps/1234/batch_events", body: batch)
                #expect(response.status == 200)
                if calls % 10 == 0 {
                    dropped = try await http.signed("GET", "/apps/1234/channels/flood").json["occupied"] as? Bool == false
                }
            }
            #expect(dropped, "the stalled connection was still subscribed after \(calls * 10) events")

            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "flood")
            await client.disconnect()
        }
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
