import Clearance
import ClearanceDevelopment
import ClearanceSigning
import Foundation
import Logging
import WSClient

/// `clearance bench --soak MINUTES`: a hub (`clearance serve`, a process of its own) under a
/// churning load for minutes: `connections` clients that subscribe to and leave random public,
/// private and presence channels, send client events, and disconnect and come back, while the
/// HTTP API triggers events. The hub's resident memory and open file descriptors are read from
/// `/proc` before the clients come, after a warm-up, at the end, and once the clients are gone:
/// growth beyond noise, or descriptors left behind, would be a leak.
struct SoakBench {
    let minutes: Double
    let connections: Int

    /// How the hub's process stood at one moment.
    struct Reading: Sendable, CustomStringConvertible {
        let residentKilobytes: Int
        let descriptors: Int
        let connected: Int

        var description: String {
            String(format: "RSS %.1f MB, %d open file descriptors, %d clients connected", Double(residentKilobytes) / 1024, descriptors, connected)
        }
    }

    func run() async throws {
        let duration = Duration.milliseconds(Int((minutes * 60_000).rounded()))
        let warmUp = Duration.milliseconds(Int(min(30, max(1, minutes * 60 * 0.2)) * 1_000))
        print("\nSoak: \(connections) connections for \(String(format: "%g", minutes)) min against `clearance serve` "
            + "(random subscribes, unsubscribes, client events, HTTP API triggers, disconnects and reconnects)")
        FanOutClients.raiseOpenFileLimit()
        let server = try ServerProcess.hub()
        defer { server.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let idle = try reading(server, connected: 0)
        print("  before the clients: \(idle)")
        let load = SoakLoad(port: server.port, connections: connections)
        let stopAt = ContinuousClock.now + warmUp + duration
        let (start, end) = try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<connections {
                group.addTask { await load.client(index, until: stopAt) }
                if index % 250 == 249 { try await Task.sleep(for: .milliseconds(100)) }  // open in waves
            }
            group.addTask { await load.trigger(server, until: stopAt) }
            BenchStatus.measuring("warm-up: \(connections) clients connecting")
            try await Task.sleep(until: stopAt - duration, clock: .continuous)
            let start = try reading(server, connected: load.connected)
            print("  after warm-up (\(Measure.seconds(warmUp)) s): \(start)")
            BenchStatus.measuring("the soak: \(String(format: "%g", minutes)) min of churn")
            try await Task.sleep(until: stopAt - .milliseconds(500), clock: .continuous)
            let end = try reading(server, connected: load.connected)
            try await group.waitForAll()
            return (start, end)
        }
        try await Task.sleep(for: .seconds(2))  // the hub notices the last closes
        let after = try reading(server, connected: 0)
        report(idle: idle, start: start, end: end, after: after, counts: load.counts)
    }

    private func reading(_ server: ServerProcess, connected: Int) throws -> Reading {
        guard let memory = server.residentKilobytes(), let descriptors = server.openFileDescriptors() else {
            throw BenchFailure("the soak reads the hub's /proc/PID/status and /proc/PID/fd: Linux only")
        }
        return Reading(residentKilobytes: memory, descriptors: descriptors, connected: connected)
    }

    private func report(idle: Reading, start: Reading, end: Reading, after: Reading, counts: SoakLoad.Counts) {
        print("  at the end:         \(end)")
        print("  clients gone:       \(after)")
        print("  work: \(counts)")
        // Noise: the allocator keeps what it freed, and a connection's buffers come and go.
        let growth = end.residentKilobytes - start.residentKilobytes
        let allowed = max(16 * 1024, start.residentKilobytes / 10)
        print(String(format: "  RSS growth from start to end: %+.1f MB (noise allowance %.1f MB): %@",
                     Double(growth) / 1024, Double(allowed) / 1024, growth <= allowed ? "within noise" : "NOT within noise"))
        // Each connection holds one descriptor: compare what is left once the connections are counted.
        let unexplained = (end.descriptors - end.connected) - (start.descriptors - start.connected)
        print("  descriptors beyond connections, start to end: \(unexplained >= 0 ? "+" : "")\(unexplained) "
            + "(allowance ±\(max(16, connections / 100))): \(abs(unexplained) <= max(16, connections / 100) ? "within noise" : "NOT within noise")")
        let leaked = after.descriptors - idle.descriptors
        print("  descriptors left after every client went: \(leaked >= 0 ? "+" : "")\(leaked) (allowance 4): \(leaked <= 4 ? "none leaked" : "LEAKED")")
    }
}

/// The soak's clients and triggers, and what they did.
final class SoakLoad: Sendable {
    struct Counts: Sendable, CustomStringConvertible {
        var sessions = 0, subscribes = 0, subscribed = 0, refused = 0, unsubscribes = 0, clientEvents = 0, received = 0, triggers = 0

        var description: String {
            "\(sessions) sessions, \(subscribes) subscribes (\(subscribed) confirmed, \(refused) refused), \(unsubscribes) unsubscribes, "
                + "\(clientEvents) client events sent, \(triggers) triggers, \(received) events received"
        }
    }

    let port: Int
    let connections: Int
    private let state = Locked((connected: 0, counts: Counts()))
    private let logger = Logger.silent("bench.soak")
    private let signer = try! ChannelAuthSigner(key: ServerProcess.key, secret: ServerProcess.secret)
    /// Channels shared by the clients, so that events reach several subscribers.
    static let channels = (0..<100).map { "soak-\($0)" } + (0..<100).map { "private-soak-\($0)" } + (0..<20).map { "presence-soak-\($0)" }

    init(port: Int, connections: Int) {
        self.port = port
        self.connections = connections
    }

    var connected: Int { state.withLock { $0.connected } }
    var counts: Counts { state.withLock { $0.counts } }

    private func count(_ change: (inout Counts) -> Void) {
        state.withLock { change(&$0.counts) }
    }

    /// One client slot until `deadline`: connects, acts for a random 5–30 s, leaves, comes back.
    func client(_ index: Int, until deadline: ContinuousClock.Instant) async {
        var generator = SystemRandomNumberGenerator()
        let url = "ws://127.0.0.1:\(port)/app/\(ServerProcess.key)?protocol=7&client=clearance-soak&version=1.0.0"
        while ContinuousClock.now < deadline, !Task.isCancelled {
            let lifetime = ContinuousClock.now + .milliseconds(Int.random(in: 5_000...30_000, using: &generator))
            _ = try? await WebSocketClient.connect(
                url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 16, closeTimeout: .seconds(2)), logger: logger
            ) { inbound, outbound, _ in
                try await self.session(inbound: inbound, outbound: outbound, until: min(lifetime, deadline), user: "user-\(index)")
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 10...500, using: &generator)))
        }
    }

    private func session(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, until end: ContinuousClock.Instant, user: String) async throws {
        let (socketIDs, socketID) = AsyncStream<String>.makeStream()
        state.withLock {
            $0.connected += 1
            $0.counts.sessions += 1
        }
        defer { state.withLock { $0.connected -= 1 } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var first = socketIDs.makeAsyncIterator()
                guard let id = await first.next() else { return }
                try await self.act(outbound: outbound, socketID: id, user: user, until: end)
                try await outbound.close(.normalClosure, reason: nil)
            }
            for try await message in inbound.messages(maxSize: 1 << 16) {
                guard case let .text(text) = message else { continue }
                if text.contains("pusher:connection_established"), let id = Self.socketID(in: text) {
                    socketID.yield(id)
                } else if text.contains("subscription_succeeded") {
                    count { $0.subscribed += 1 }
                } else if text.contains("subscription_error") {
                    count { $0.refused += 1 }
                } else if text.contains("soak-event") || text.contains("client-soak") {
                    count { $0.received += 1 }
                }
            }
            socketID.finish()
            try await group.waitForAll()
        }
    }

    /// About one action a second: subscribe (70 % while under 8 channels), leave one, or send a
    /// client event on a private channel it is in.
    private func act(outbound: WebSocketOutboundWriter, socketID: String, user: String, until end: ContinuousClock.Instant) async throws {
        var generator = SystemRandomNumberGenerator()
        var subscribed: [String] = []
        while ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(Int.random(in: 500...1_500, using: &generator)))
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll < 7 && subscribed.count < 8 || subscribed.isEmpty {
                let channel = Self.channels.randomElement(using: &generator)!
                guard !subscribed.contains(channel) else { continue }
                try await outbound.write(.text(subscribeFrame(channel: channel, socketID: socketID, user: user)))
                subscribed.append(channel)
                count { $0.subscribes += 1 }
            } else if roll < 9, let channel = subscribed.first(where: { $0.hasPrefix("private-") }) {
                try await outbound.write(.text(#"{"event":"client-soak","channel":"\#(channel)","data":{"from":"\#(user)"}}"#))
                count { $0.clientEvents += 1 }
            } else {
                let channel = subscribed.remove(at: Int.random(in: 0..<subscribed.count, using: &generator))
                try await outbound.write(.text(#"{"event":"pusher:unsubscribe","data":{"channel":"\#(channel)"}}"#))
                count { $0.unsubscribes += 1 }
            }
        }
    }

    private func subscribeFrame(channel: String, socketID: String, user: String) -> String {
        guard channel.hasPrefix("private-") || channel.hasPrefix("presence-") else {
            return #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#
        }
        let channelData = channel.hasPrefix("presence-") ? #"{"user_id":"\#(user)"}"# : nil
        guard let auth = try? signer.authorizeChannel(socketID: socketID, channelName: channel, channelData: channelData).auth else {
            return #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#
        }
        let escapedData = channelData.map { #","channel_data":"\#($0.replacingOccurrences(of: "\"", with: "\\\""))""# } ?? ""
        return #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)","auth":"\#(auth)"\#(escapedData)}}"#
    }

    /// Triggers an event on a random channel about 50 times a second until `deadline`.
    func trigger(_ server: ServerProcess, until deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
            guard let channel = Self.channels.randomElement() else { return }
            if (try? await server.trigger(channel: channel, name: "soak-event", data: #"{"n":1}"#)) != nil {
                count { $0.triggers += 1 }
            }
        }
    }

    private static func socketID(in text: String) -> String? {
        guard let range = text.range(of: #"socket_id\":\""#) else { return nil }
        let id = text[range.upperBound...].prefix { $0 != "\\" && $0 != "\"" }
        return id.isEmpty ? nil : String(id)
    }
}
