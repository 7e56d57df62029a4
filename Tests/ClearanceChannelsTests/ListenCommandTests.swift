import Clearance
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance listen` against the hub: subscribes (with server-based authorization) and prints events as JSON lines.
@Suite("clearance listen")
struct ListenCommandTests {
    @Test func printsEventsOfAuthorizedChannelsAsJSONLines() async throws {
        try await TestHub.with { hub in
            let listen = try ClearanceExecutable.start([
                "listen", "--key", TestHub.key, "--host", "127.0.0.1", "--port", "\(hub.port)",
                "--auth-url", hub.httpURL.appending(path: "/pusher/auth").absoluteString,
                "--header", "Authorization: Bearer alice-token", "private-listen",
            ])
            defer { Task { await listen.stop() } }
            // Trigger until the listener has subscribed and printed the event.
            try await eventually("the event printed by clearance listen", timeout: .seconds(20)) {
                try? await TestHub.trigger(hub, event: "shipped", channels: ["private-listen"], data: #"{"id":7}"#)
                return listen.stdout.contains("shipped")
            }
            let printed = await listen.line(timeout: .seconds(5)) { $0.contains("shipped") } ?? ""
            let object = try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any]
            #expect(object?["channel"] as? String == "private-listen")
            #expect(!printed.contains(TestHub.secret))
        }
    }
}
