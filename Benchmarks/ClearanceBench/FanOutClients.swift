import ClearanceDevelopment
import Foundation
import Logging
import WSClient
#if canImport(Glibc)
import Glibc
#endif

/// The bench's WebSocket clients: opened in waves of 250, each subscribes to `bench` with a
/// bare `pusher:subscribe` frame and records, for every frame carrying a `"t"` timestamp, how
/// long it took from the trigger call to its arrival. The same clients for the hub and for the
/// minimal broadcaster.
enum FanOutClients {
    /// A group of clients of one server.
    struct Group: Sendable {
        let port: Int
        let connections: Int
        let samples = LatencySamples()
    }

    /// Opens every group's clients, waits until they are subscribed (or 30 s per wave passed),
    /// and runs `body` with the time that took; the clients stay open until `body` returns and
    /// `closeServers` has stopped the servers.
    static func with<T: Sendable>(
        _ groups: [Group],
        closeServers: @escaping @Sendable () -> Void,
        _ body: @Sendable (Duration) async throws -> T
    ) async throws -> T {
        raiseOpenFileLimit()
        let logger = Logger.silent("bench.client")
        let subscribe = #"{"event":"pusher:subscribe","data":{"channel":"bench"}}"#
        let started = ContinuousClock.now
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            for group in groups {
                let url = "ws://127.0.0.1:\(group.port)/app/\(ServerProcess.key)?protocol=7&client=clearance-bench&version=1.0.0"
                var opened = 0
                while opened < group.connections {
                    let wave = min(250, group.connections - opened)
                    for _ in 0..<wave {
                        tasks.addTask {
                            _ = try? await WebSocketClient.connect(
                                url: url,
                                configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 16, closeTimeout: .seconds(2)),
                                logger: logger
                            ) { inbound, outbound, _ in
                                try await outbound.write(.text(subscribe))
                                for try await message in inbound.messages(maxSize: 1 << 16) {
                                    guard case let .text(text) = message else { continue }
                                    if text.contains("subscription_succeeded") {
                                        group.samples.addSubscribed()
                                    } else if let sent = timestamp(in: text) {
                                        group.samples.addLatency(DispatchTime.now().uptimeNanoseconds &- sent)
                                    }
                                }
                            }
                        }
                    }
                    opened += wave
                    // A client that never gets its subscription confirmed is left out of the figures.
                    _ = try await Measure.wait(upTo: .seconds(30)) { group.samples.subscribedCount >= opened }
                }
            }
            let setup = ContinuousClock.now - started
            do {
                let result = try await body(setup)
                closeServers()
                tasks.cancelAll()
                return result
            } catch {
                closeServers()
                tasks.cancelAll()
                throw error
            }
        }
    }

    /// A fresh `"t":<now>` payload, for ``timestamp(in:)`` on arrival.
    static func stampedData() -> String {
        #"{"t":\#(DispatchTime.now().uptimeNanoseconds)}"#
    }

    private static func timestamp(in text: String) -> UInt64? {
        guard let range = text.range(of: #"\"t\":"#) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return UInt64(digits)
    }

    /// Raises this process's open-file limit to the hard limit: every client is a descriptor.
    static func raiseOpenFileLimit() {
        #if canImport(Glibc)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        #endif
    }
}
