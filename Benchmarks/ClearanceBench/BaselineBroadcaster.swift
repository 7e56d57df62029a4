import Clearance
import ClearanceDevelopment
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// The limit the hub's fan-out is measured against: a broadcaster on the same stack as the hub
/// (Hummingbird and hummingbird-websocket, the same upgrade path, one writer task per
/// connection), with no Pusher logic at all: no app, no signature, no channel, no JSON. A
/// connection's first message is answered with a `subscription_succeeded` frame (what the bench
/// clients wait for) and joins the audience; every body POSTed to `/apps/{id}/events` is sent
/// as it is to the whole audience. `clearance bench-broadcaster` runs it as a process of its own,
/// so that its memory is measured apart from the clients'.
public enum BaselineBroadcaster {
    static let subscribed = #"{"event":"pusher_internal:subscription_succeeded","channel":"bench","data":"{}"}"#

    /// Runs on `host:port` (0: a free port) until SIGTERM or SIGINT; prints `ready http=URL`
    /// once it listens.
    public static func run(host: String = "127.0.0.1", port: Int = 0) async throws {
        let audience = Audience()
        let router = Router()
        router.post("/apps/{appID}/events") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 1 << 20)
            audience.send(String(buffer: body))
            return .ok
        }
        let logger = Logger.silent("clearance.bench.broadcaster")
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(ws: WebSocketServerConfiguration(autoPing: .disabled))) { _, _, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    let (frames, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(4_096))
                    let member = audience.nextID()
                    defer { audience.leave(member) }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await frame in frames { try await outbound.write(.text(frame)) }
                        }
                        var joined = false
                        for try await _ in inbound.messages(maxSize: 1 << 14) where !joined {
                            joined = true
                            continuation.yield(subscribed)
                            audience.join(member, continuation)
                        }
                        continuation.finish()
                        group.cancelAll()
                    }
                }
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "clearance-bench-broadcaster"),
            onServerRunning: { channel in
                // Written at once: the bench reads it from a file while this runs.
                FileHandle.standardOutput.write(Data("ready http=http://\(host):\(channel.localAddress?.port ?? port)\n".utf8))
            },
            logger: logger
        )
        try await ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
    }

    /// The connections that receive every broadcast.
    private final class Audience: Sendable {
        private let members = Locked<(next: Int, continuations: [Int: AsyncStream<String>.Continuation])>((0, [:]))

        func nextID() -> Int {
            members.withLock { state in
                state.next += 1
                return state.next
            }
        }

        func join(_ id: Int, _ continuation: AsyncStream<String>.Continuation) {
            members.withLock { $0.continuations[id] = continuation }
        }

        func leave(_ id: Int) {
            members.withLock { $0.continuations[id] = nil }
        }

        func send(_ frame: String) {
            for continuation in members.withLock({ Array($0.continuations.values) }) { continuation.yield(frame) }
        }
    }
}
