import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// The WebSocket layer the hub keeps itself: fragmented messages, pings, and clients that do not
/// answer the close handshake.
@Suite("Hub WebSocket handling", .timeLimit(.minutes(1)))
struct HubWebSocketTests {
    @Test func aMessageSentInFragmentsIsOneMessage() async throws {
        try await TestHub.with { hub in
            let socket = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/\(TestHub.key)?protocol=7")
            #expect(await socket.reading { Self.nextText($0) }?.contains("pusher:connection_established") == true)
            let subscribe = Array(#"{"event":"pusher:subscribe","data":{"channel":"fragmented"}}"#.utf8)
            try socket.send(opcode: .text, payload: Array(subscribe[..<10]), fin: false)
            try socket.send(opcode: .ping, payload: [7])
            try socket.send(opcode: .continuation, payload: Array(subscribe[10..<30]), fin: false)
            try socket.send(opcode: .continuation, payload: Array(subscribe[30...]), fin: true)
            let (sawPong, subscribed) = await socket.reading { socket in
                var sawPong = false, subscribed = false
                while !subscribed, let frame = try? socket.readFrame() {
                    if frame.opcode == RawWebSocket.Opcode.pong.rawValue { sawPong = frame.payload == [7] }
                    if frame.opcode == RawWebSocket.Opcode.text.rawValue {
                        subscribed = String(decoding: frame.payload, as: UTF8.self).contains("subscription_succeeded")
                    }
                }
                return (sawPong, subscribed)
            }
            #expect(sawPong && subscribed)
            try socket.sendClose(code: 1000)
        }
    }

    // RFC 6455 §5.5.1: the hub answers a client's close frame with its own, then ends the TCP
    // connection, so that a client library's close returns at once instead of at its timeout.
    @Test func aClientsCloseFrameIsAnsweredAndTheConnectionEnds() async throws {
        try await TestHub.with { hub in
            let socket = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/\(TestHub.key)?protocol=7")
            #expect(await socket.reading { Self.nextText($0) }?.contains("pusher:connection_established") == true)
            try socket.sendClose(code: 1000)
            let frames = await socket.frames(upTo: 5)
            #expect(Self.closeCode(frames) == 1000, "\(frames.map(\.opcode))")
            #expect(await socket.ends(within: .seconds(5)), "the hub ends the connection after the close handshake")
        }
    }

    // The close timeout (1 s here) runs on the hub's clock, which the test moves: the hub checks
    // these deadlines four times per close timeout (every 250 ms here), so a refused client that
    // never answers the close frame is cut at the first check after its deadline, and not
    // before, however slow the machine.
    @Test func aRefusedClientThatIgnoresTheCloseFrameIsDisconnectedAfterTheCloseTimeout() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(TestHub.configuration(), clock: clock) { hub in
            // Neither client ever answers the close frame.
            let early = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/unknown-key?protocol=7")
            #expect(Self.closeCode(await early.frames(upTo: 5)) == 4001)
            await clock.advance(by: .milliseconds(500))
            let late = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/unknown-key?protocol=7")
            #expect(Self.closeCode(await late.frames(upTo: 5)) == 4001)

            // At 1.25 s the early client's deadline (1 s) has passed, the late one's (1.5 s) has not.
            await clock.advance(by: .milliseconds(750))
            #expect(await early.ends(within: .seconds(10)), "the early client is cut: its socket ends")
            try await eventually("only the late client's socket is open") { hub.counters.gauge(.openSockets) == 1 }

            // At 1.75 s the late one is cut too.
            await clock.advance(by: .milliseconds(500))
            #expect(await late.ends(within: .seconds(10)), "the late client is cut: its socket ends")
            try await eventually("no socket is open") { hub.counters.gauge(.openSockets) == 0 }
        }
    }

    /// The code of the close frame among `frames`, if one came.
    private static func closeCode(_ frames: [RawWebSocket.Frame]) -> Int? {
        guard let close = frames.last(where: { $0.opcode == RawWebSocket.Opcode.close.rawValue }), close.payload.count >= 2 else { return nil }
        return Int(close.payload[0]) << 8 | Int(close.payload[1])
    }

    private static func nextText(_ socket: RawWebSocket) -> String? {
        while let frame = try? socket.readFrame() {
            if frame.opcode == RawWebSocket.Opcode.text.rawValue { return String(decoding: frame.payload, as: UTF8.self) }
        }
        return nil
    }
}
