import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// Third-party peers against the hub: pysher (client) and the official `pusher` library
/// (server side), driven by `Tests/Interop/hub_pysher.py`. No Clearance client is involved.
@Suite("Hub interop with pysher and the official pusher library", .timeLimit(.minutes(2)))
struct HubInteropTests {
    static let expectedChecks = [
        "connected",
        "subscribed:room-1", "subscribed:private-orders", "subscribed:presence-lobby",
        "channel_info", "trigger_response",
        "received:room-1", "received:private-orders", "received:presence-lobby",
        "batch_received", "socket_id_excluded", "wrong_signature_refused",
        "second_member_sees_both", "member_added", "users_info", "channels_info", "member_removed",
        "wrong_secret_refused", "no_connection_errors",
    ]

    /// Also with a channel history on every channel (connection recovery): the extra members of
    /// the frames and of the HTTP API's answer change nothing for either library.
    @Test(arguments: [false, true])
    func pysherSubscribesAndReceivesEventsTriggeredByTheOfficialLibrary(history: Bool) async throws {
        let configuration = TestHub.configuration { app in
            if history { app.history = ChannelHistoryConfiguration(size: 300, ttl: 120) }
        }
        try await TestHub.with(configuration) { hub in
            let run = try await PythonPeer.run("hub_pysher.py", [
                "--port", String(hub.port),
                "--app-id", TestHub.appID,
                "--key", TestHub.key,
                "--secret", TestHub.secret,
                "--alice-token", TestHub.alice.token,
                "--bob-token", TestHub.bob.token,
                "--deadline", String(60 * TestTiming.scale),
            ] + (history ? ["--history"] : []), timeout: .seconds(90))  // ChildProcess.run stretches it under a sanitizer

            var results: [String: Bool] = [:]
            var details: [String: String] = [:]
            var done = false
            for line in run.stdout.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
                if object["done"] as? Bool == true { done = true }
                if let check = object["check"] as? String {
                    results[check] = object["ok"] as? Bool ?? false
                    details[check] = "\(object["detail"] ?? "")"
                }
            }
            #expect(run.status == 0, "hub_pysher.py exited with \(run.status); stderr: \(run.stderr.suffix(2_000))")
            #expect(done, "hub_pysher.py did not finish; stdout: \(run.stdout.suffix(2_000))")
            for check in Self.expectedChecks {
                #expect(results[check] == true, "\(check): \(details[check] ?? "missing")")
            }
            let failures = results.filter { !$0.value }.map(\.key)
            #expect(failures.isEmpty, "failed checks: \(failures) \(details)")
        }
    }
}
