import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// Connection recovery in `clearance serve` as built, seen by raw frames from Python
/// (`websocket-client`), every event triggered by the official `pusher` library
/// (`Tests/Interop/hub_resume.py`).
@Suite("clearance serve: connection recovery (Python)", .timeLimit(.minutes(3)))
struct ServeConnectionRecoveryTests {
    static let appID = "626262"  // the Python library takes digits only

    @Test func aClientThatComesBackGetsWhatItMissedOnceInOrderOrIsToldItDidNot() async throws {
        try await ServeProcess.with(limits: TestHub.limits(), development: false, adjustApp: { app in
            app.id = Self.appID
            app.history = ChannelHistoryConfiguration(size: 100, ttl: 120)
        }) { serve in
            let run = try await PythonPeer.run("hub_resume.py", [
                "127.0.0.1", String(serve.port), Self.appID, TestHub.key, TestHub.secret, "orders", "50",
            ])
            #expect(run.status == 0, "hub_resume.py exited with \(run.status): \(run.stderr.suffix(2_000))")
            let line = try #require(run.stdout.split(separator: "\n").last.map(String.init), "no report: \(run.stderr.suffix(2_000))")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            func object(_ name: String) throws -> [String: Any] { try #require(report[name] as? [String: Any], "\(name) in \(line)") }

            let first = try object("first")
            let stream = try #require(first["stream"] as? String)
            #expect(first["serial"] as? Int == 0)
            #expect(first["recovered"] as? String == "absent")
            #expect(try object("first_event")["serial"] as? Int == 1)
            #expect((try object("first_trigger")["channels"] as? [String: [String: Int]]) == ["orders": ["serial": 1]])
            let missed = try #require(report["missed_triggers"] as? [[String: Any]])
            #expect(missed.map { ($0["channels"] as? [String: [String: Int]])?["orders"]?["serial"] } == (2...51).map { Int?($0) })

            // 1. 50 missed: recovered, exactly those in order, then the live event.
            let resumed = try object("resumed")
            #expect(resumed["recovered"] as? Bool == true)
            #expect(resumed["stream"] as? String == stream)
            #expect(resumed["serial"] as? Int == 51)
            let replayed = try #require(report["replayed"] as? [[String: Any]])
            #expect(replayed.map { $0["serial"] as? Int } == (2...51).map { Int?($0) })
            #expect(replayed.map { $0["data"] as? String } == (2...51).map { "\($0)" })
            #expect(try object("live")["serial"] as? Int == 52)
            #expect(try object("live")["data"] as? String == "live")

            // 2. Another stream, ahead of the channel, beyond size: not recovered, no event (the
            // next frame is the pong of a ping sent after the answer).
            for name in ["another_stream", "ahead", "beyond_size"] {
                let answer = try object(name)
                #expect(answer["recovered"] as? Bool == false, "\(name)")
                #expect(answer["stream"] as? String == stream, "\(name)")
                #expect(answer["next"] as? String == "pusher:pong", "\(name): never a partial replay")
            }
            #expect(try object("beyond_size")["serial"] as? Int == 118)

            // 3. A bad signature refuses the resume as any subscription.
            #expect(try object("bad_auth")["event"] as? String == "pusher:subscription_error")
            #expect(try object("bad_auth")["next"] as? String == "pusher:pong")
        }
    }
}
