import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Hummingbird

/// A webhook receiver in this process (``WebhookReceiver`` at `/hooks`) that keeps the events it
/// accepted: only those signed with the test key and `secret`.
final class RecordingWebhookReceiver: Sendable {
    private let server: RunningServer
    private let received: Locked<[WebhookEvent]>

    private init(server: RunningServer, received: Locked<[WebhookEvent]>) {
        self.server = server
        self.received = received
    }

    /// Starts one on a free loopback port.
    static func start(secret: String = TestHub.secret) async throws -> RecordingWebhookReceiver {
        let receiver = try WebhookReceiver(key: TestHub.key, secret: secret)
        let received = Locked([WebhookEvent]())
        let router = Router()
        router.post("/hooks") { request, _ in
            await receiver.respond(to: request) { payload in received.withLock { $0.append(contentsOf: payload.events) } }
        }
        return RecordingWebhookReceiver(server: try await RunningServer.start(router, logger: TestHub.quietLogger), received: received)
    }

    /// Where a webhook target sends.
    var url: String { server.baseURL.absoluteString + "/hooks" }

    /// The events accepted so far, in order.
    var events: [WebhookEvent] { received.withLock { $0 } }

    func stop() async { await server.stop() }
}
