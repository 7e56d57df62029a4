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

    @Test func aRefusedClientThatIgnoresTheCloseFrameIsDisconnectedAfterTheCloseTimeout() async throws {
        try await TestHub.with { hub in
            let socket = try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/unknown-key?protocol=7")
            let start = ContinuousClock.now
            // Never answer the close frame: the hub hangs up by itself (close timeout: 1 s).
            let codes = await socket.reading { socket in
                var codes: [UInt8] = []
                while let frame = try? socket.readFrame() { codes.append(frame.opcode) }
                return codes
            }
            #expect(codes.contains(RawWebSocket.Opcode.close.rawValue))
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    private static func nextText(_ socket: RawWebSocket) -> String? {
        while let frame = try? socket.readFrame() {
            if frame.opcode == RawWebSocket.Opcode.text.rawValue { return String(decoding: frame.payload, as: UTF8.self) }
        }
        return nil
    }
}
