import ClearanceServer
import NIOCore
import NIOEmbedded
import NIOWebSocket

/// What one event costs on the fan-out path: the buffer storage one 10 KB event holds while it
/// waits for 10,000 subscribers that have not taken it yet (every distinct buffer counted once,
/// at its capacity: the frame headers NIO's encoder writes and the payloads). Against the
/// baseline measured in the same run: the hub's former path, which copied the event's text into
/// a buffer of its own for every subscriber.
///
/// The subscribers are embedded channels behind NIO's WebSocket encoder, so what is counted is
/// exactly what their pending writes hold; the hub's path is its own (`ChannelTable.deliver` →
/// each connection's outbox and sink).
struct FanOutAllocationBench {
    var subscribers = 10_000
    var dataBytes = 10_240
    var events = 5

    func run() throws {
        print("\nFan-out memory: one \(dataBytes / 1_024) KB event to \(subscribers) subscribers (buffer storage held until written)")
        let text = PusherFrame.event(name: "bench-tick", channel: "bench", data: String(repeating: "x", count: dataBytes))
        let baseline = try measure { channels in
            for _ in 0..<events {
                for channel in channels {
                    channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text)), promise: nil)
                }
            }
        }
        let shared = try measure { channels in
            var table = ChannelTable()
            for (index, outbox) in try ConnectionOutbox.webSocketOutboxes(for: channels).enumerated() {
                table.addConnection(socketID: "\(index).1", appID: "bench", outbox: outbox)
                _ = table.subscribe(socketID: "\(index).1", appID: "bench", channel: "bench", member: nil, maxPresenceMembers: 100)
            }
            for channel in channels { try Self.drain(channel) }  // subscription_succeeded
            for _ in 0..<events { table.deliver(appID: "bench", channel: "bench", frame: text, excluding: nil) }
        }
        func line(_ label: String, _ bytes: Int) {
            let perEvent = Double(bytes) / Double(events)
            print("    " + label.padding(toLength: 40, withPad: " ", startingAt: 0)
                + String(format: "%10.1f KB per event  (%.1f bytes per subscriber)", perEvent / 1_024, perEvent / Double(subscribers)))
        }
        line("baseline: a copy per subscriber", baseline)
        line("hub: one shared buffer", shared)
        print(String(format: "    the hub holds %.4f× the baseline's bytes per event (%.0f× less)", Double(shared) / Double(baseline), Double(baseline) / Double(max(shared, 1))))
    }

    /// The distinct buffer storage the channels hold after `deliver` (every channel behind a
    /// WebSocket encoder, nothing read yet).
    private func measure(_ deliver: ([EmbeddedChannel]) throws -> Void) throws -> Int {
        let channels = try (0..<subscribers).map { _ in
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            return channel
        }
        defer { for channel in channels { _ = try? channel.finish() } }
        try deliver(channels)
        var storages = Set<UInt>()
        var bytes = 0
        for channel in channels {
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                let base = buffer.withVeryUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
                if storages.insert(base).inserted { bytes += buffer.storageCapacity }
            }
        }
        return bytes
    }

    private static func drain(_ channel: EmbeddedChannel) throws {
        while try channel.readOutbound(as: ByteBuffer.self) != nil {}
    }
}
