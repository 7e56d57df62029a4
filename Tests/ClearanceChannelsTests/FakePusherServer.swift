import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// What the fake server does in answer to a frame.
enum FakeAction: Sendable {
    case send(String)
    case close(code: Int, reason: String)
    case pause(Duration)
}

/// A scripted Pusher server for behaviour the hub does not show (hosted Pusher's and Reverb's
/// `pusher:error` shapes, chosen close codes, a server that never answers pings). Every
/// connection gets `connection_established` with socket id `N.N` (N counts connections), then
/// what `greeting(connection)` says (a close after a timeout, say), then
/// `script(connection, frame)` decides the answer to each frame the client sends.
enum FakePusherServer {
    static func start(
        activityTimeout: Int = 120,
        greeting: @escaping @Sendable (_ connection: Int) -> [FakeAction] = { _ in [] },
        script: @escaping @Sendable (_ connection: Int, _ event: String, _ data: [String: Any]) -> [FakeAction]
    ) async throws -> FakePusherServerBox {
        let box = FakePusherServerBox()
        let server = try await RunningServer.start(
            Router(),
            server: .http1WebSocketUpgrade { _, _, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    let connection = box.connections.withLock { $0 += 1; return $0 }
                    box.connectedAt.withLock { $0.append(.now) }
                    try await outbound.write(.text(#"{"event":"pusher:connection_established","data":"{\"socket_id\":\"\#(connection).\#(connection)\",\"activity_timeout\":\#(activityTimeout)}"}"#))
                    /// Carries out `actions`; false once they closed the connection.
                    func perform(_ actions: [FakeAction]) async throws -> Bool {
                        for action in actions {
                            switch action {
                            case .send(let frame):
                                try await outbound.write(.text(frame))
                            case .pause(let duration):
                                // sleep: a scripted pause (a slow server on purpose), not a wait.
                                try await Task.sleep(for: duration)
                            case .close(let code, let reason):
                                try await outbound.close(.init(codeNumber: code), reason: reason)
                                return false
                            }
                        }
                        return true
                    }
                    guard try await perform(greeting(connection)) else { return }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        box.received.withLock { $0.append((connection, text)) }
                        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
                        let event = object["event"] as? String ?? ""
                        let data = object["data"] as? [String: Any] ?? [:]
                        guard try await perform(script(connection, event, data)) else { return }
                    }
                }
            },
            logger: TestHub.quietLogger
        )
        box.server = server
        return box
    }
}

/// The fake server and what it saw.
final class FakePusherServerBox: @unchecked Sendable {
    var server: RunningServer!
    let received = Locked<[(connection: Int, text: String)]>([])
    let connections = Locked(0)
    /// When each connection was accepted, in order.
    let connectedAt = Locked<[ContinuousClock.Instant]>([])
    var port: Int { server.port }

    func frames(event: String) -> [(connection: Int, text: String)] {
        received.withLock { $0.filter { $0.text.contains(#""event":"\#(event)""#) } }
    }

    func stop() async { await server.stop() }
}
