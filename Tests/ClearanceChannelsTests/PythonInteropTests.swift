import ClearanceChannels
import Foundation
import Testing

/// Runs `Tests/Interop/channels_trigger.py` with the repository's Python (`$CLEARANCE_PYTHON`,
/// else `.venv/bin/python`, made by scripts/python-env). A missing interpreter is a failure.
enum ChannelsPython {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func root(filePath: String = #filePath) throws -> URL {
        if let root = ProcessInfo.processInfo.environment["CLEARANCE_ROOT"], !root.isEmpty { return URL(fileURLWithPath: root) }
        var directory = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Tests/Interop/channels_trigger.py").path) { return directory }
            directory.deleteLastPathComponent()
        }
        throw Failure(description: "Cannot find Tests/Interop/channels_trigger.py; set CLEARANCE_ROOT.")
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let root = try root()
        let python = ProcessInfo.processInfo.environment["CLEARANCE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "No Python at \(python): run scripts/python-env or set CLEARANCE_PYTHON.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", root.appendingPathComponent("Tests/Interop/channels_trigger.py").path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

@Suite(.serialized) struct PythonInteropTests {
    @Test func officialPythonLibraryEventsReachEveryKindOfChannel() async throws {
        try await HubFixture.with { box in
            let hub = box.hub
            let client = ChannelClient(key: HubFixture.key, options: HubFixture.options(hub.port, authorizer: try HubFixture.serverAuthorizer(hub, token: "alice-token")))
            await client.connect()
            let names = ["news", "private-orders", "presence-room", "private-encrypted-vault"]
            var channels: [Channel] = []
            for name in names { channels.append(await client.subscribe(name)) }
            for channel in channels { try await channel.subscribed() }
            let streams = channels.map { channel in channel.bind(event: "from-python") }
            let received = Task {
                try await withThrowingTaskGroup(of: (String, String?).self) { group in
                    for stream in streams {
                        group.addTask {
                            let event = try await first(stream) { _ in true }
                            return (event.channel, event.data)
                        }
                    }
                    var results: [String: String?] = [:]
                    for try await (channel, data) in group { results[channel] = data }
                    return results
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            let specs = names.map { #"\#($0)=from-python={"via":"pusher-python","channel":"\#($0)"}"# }
            let run = try ChannelsPython.run(["127.0.0.1", String(hub.port), HubFixture.appID, HubFixture.key, HubFixture.secret, HubFixture.masterKey] + specs)
            #expect(run.status == 0, "python: \(run.output)")
            let results = try await received.value
            for name in names {
                let data = try #require(results[name] ?? nil, "no event on \(name)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: String])
                #expect(object == ["via": "pusher-python", "channel": name])
            }
            await client.disconnect()
        }
    }
}
