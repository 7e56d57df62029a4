import ClearanceServer
import Foundation
import Synchronization
import Testing

/// `clearance listen` against the hub: subscribes (with server-based authorization) and prints events as JSON lines.
@Suite("clearance listen")
struct ListenCommandTests {
    static func executable() -> URL? {
        if let explicit = ProcessInfo.processInfo.environment["CLEARANCE_EXECUTABLE"] { return URL(fileURLWithPath: explicit) }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        return [here, here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()]
            .map { $0.appendingPathComponent("clearance") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test func printsEventsOfAuthorizedChannelsAsJSONLines() async throws {
        let executable = try #require(Self.executable(), "the clearance executable was not built (swift build --build-tests builds it)")
        try await HubFixture.with { box in
            let hub = box.hub
            let process = Process()
            process.executableURL = executable
            process.arguments = ["listen", "--key", HubFixture.key, "--host", "127.0.0.1", "--port", "\(hub.port)",
                                 "--auth-url", hub.httpURL.appending(path: "/pusher/auth").absoluteString,
                                 "--header", "Authorization: Bearer alice-token", "private-listen"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
            let lines = Mutex("")
            let handle = output.fileHandleForReading
            let reader = Thread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return }
                    lines.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
                }
            }
            reader.start()
            // Trigger until the listener has subscribed and printed the event.
            try await eventually("the event printed by clearance listen", timeout: .seconds(20)) {
                try? await HubFixture.trigger(hub, event: "shipped", channels: ["private-listen"], data: #"{"id":7}"#)
                return lines.withLock { $0.contains("shipped") }
            }
            let printed = lines.withLock { $0 }.split(separator: "\n").first { $0.contains("shipped") }.map(String.init) ?? ""
            let object = try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any]
            #expect(object?["channel"] as? String == "private-listen")
            #expect(!printed.contains(HubFixture.secret))
        }
    }
}
