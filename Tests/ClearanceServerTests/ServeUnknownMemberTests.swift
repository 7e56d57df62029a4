import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` as built, with a configuration file that has a misspelt member: it refuses
/// to start, naming the member and the closest known name, and a SIGHUP with such a file is
/// refused while the hub keeps running on the last good configuration.
@Suite("clearance serve: unknown members of the configuration", .timeLimit(.minutes(3)))
struct ServeUnknownMemberTests {
    static let misspelt = "The configuration has an unknown member apps[0].alowedOrigins: did you mean allowedOrigins?"

    /// The test app's JSON with `members` added (or replaced), as the `apps` member of a file.
    static func appsJSON(_ members: [String: Any]) throws -> String {
        var app = try JSONSerialization.jsonObject(with: JSONEncoder().encode(TestHub.configuration().apps[0])) as? [String: Any] ?? [:]
        app.merge(members) { _, new in new }
        return String(decoding: try JSONSerialization.data(withJSONObject: [app]), as: UTF8.self)
    }

    /// A configuration file's text: the test app with `appMembers` added, the test limits, and
    /// `top` members (JSON texts) at the top level.
    static func fileText(port: Int, appMembers: [String: Any], top: [String: String] = [:]) throws -> Data {
        var object: [String: Any] = [
            "host": "127.0.0.1", "port": port,
            "apps": try JSONSerialization.jsonObject(with: Data(try appsJSON(appMembers).utf8)),
            "limits": try JSONSerialization.jsonObject(with: JSONEncoder().encode(TestHub.limits())),
        ]
        for (name, json) in top { object[name] = try JSONSerialization.jsonObject(with: Data(json.utf8)) }
        return try JSONSerialization.data(withJSONObject: object)
    }

    @Test(arguments: [false, true])
    func aMisspeltMemberStopsTheStart(development: Bool) async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(
            port: port, limits: TestHub.limits(), members: ["apps": try Self.appsJSON(["alowedOrigins": ["https://app.example.com"]])])
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await ClearanceExecutable.run(["serve", "--config", file.path] + (development ? ["--development"] : []))
        #expect(result.status != 0)
        #expect(result.stderr.contains("hub.configuration.unknownMember: \(Self.misspelt)"), "\(result.stderr)")
        #expect(!result.stdout.contains("ready "), "\(result.stdout)")
    }

    @Test func sighupRefusesAFileWithAMisspeltMemberAndKeepsTheLastGoodOne() async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: file) }
        let serve = try await ServeProcess.start(configuration: file, port: port, development: false)
        try await serve.killed {
            let kept = try await serve.connectedClient()
            kept.send(#"{"event":"pusher:subscribe","data":{"channel":"news"}}"#)
            _ = try await kept.next(event: "pusher_internal:subscription_succeeded")

            // A new secret and a misspelt member in the same file: refused as a whole.
            let rotated = "rotated-by-a-refused-file"
            try Self.fileText(port: port, appMembers: ["secret": rotated, "alowedOrigins": ["https://app.example.com"]]).write(to: file, options: .atomic)
            let refused = try await ServeReloadTests.hangUp(serve)
            #expect(refused == "reload refused: hub.configuration.unknownMember: \(Self.misspelt)", "\(refused)")
            // stderr is a pipe of its own: the log line may be read after the answer on stdout.
            try await eventually("the refusal logged") { serve.process.stderr.contains("hub.reload.refused") }

            // The last good configuration holds: the old secret signs, the new one does not, the connection stays.
            let old = try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: #"{"name":"still","channels":["news"],"data":"1"}"#)
            #expect(old.status == 200, "\(old.status) \(old.body)")
            #expect(try await kept.next(event: "still").rawData as? String == "1")
            let newSigner = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: rotated)
            let new = try await serve.http.signed(
                "POST", newSigner.eventsPath, body: #"{"name":"x","channels":["news"],"data":"2"}"#, signer: newSigner)
            #expect(new.status == 401, "\(new.status) \(new.body)")

            // A misspelt member at the top level is refused the same way.
            try Self.fileText(port: port, appMembers: [:], top: ["limts": #"{"maxConnections": 5}"#]).write(to: file, options: .atomic)
            let top = try await ServeReloadTests.hangUp(serve)
            #expect(top == "reload refused: hub.configuration.unknownMember: The configuration has an unknown member limts: did you mean limits?", "\(top)")

            // With the member spelt right, the same change applies.
            try Self.fileText(port: port, appMembers: ["secret": rotated, "allowedOrigins": ["https://app.example.com"]]).write(to: file, options: .atomic)
            let applied = try await Self.hangUpUntilApplied(serve)
            #expect(applied.contains("updated=\(TestHub.appID)"), "\(applied)")
            let afterwards = try await serve.http.signed(
                "POST", newSigner.eventsPath, body: #"{"name":"after","channels":["news"],"data":"3"}"#, signer: newSigner)
            #expect(afterwards.status == 200, "\(afterwards.status) \(afterwards.body)")
            #expect(try await kept.next(event: "after").rawData as? String == "3")
            #expect(serve.process.isRunning)
        }
    }

    /// Sends SIGHUP and returns the `reloaded …` line, failing on a refusal.
    private static func hangUpUntilApplied(_ serve: ServeProcess) async throws -> String {
        let line = try await ServeReloadTests.hangUp(serve)
        #expect(line.hasPrefix("reloaded "), "\(line)")
        return line
    }
}
