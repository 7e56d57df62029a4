import ClearanceTestSupport
import Foundation

/// Runs `Tests/Interop/pusher_signatures.py` (the official `pusher` library) once over a batch of
/// cases, through the shared Python-peer launcher: a missing interpreter or library fails the
/// test with a message saying how to install it, never a skip.
enum PythonInterop {
    struct Outcome: Sendable {
        let pusherVersion: String
        let results: [Int: InteropResult]
    }

    static func run(_ cases: [InteropCase]) async throws -> Outcome {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-signing-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let input = work.appendingPathComponent("cases.jsonl")
        let output = work.appendingPathComponent("results.jsonl")

        let encoder = SnakeCaseKeys.encoder
        var lines = Data()
        for item in cases {
            lines.append(try encoder.encode(item))
            lines.append(UInt8(ascii: "\n"))
        }
        try lines.write(to: input)

        let run = try await PythonPeer.run("pusher_signatures.py", [input.path, output.path])
        guard run.status == 0 else {
            throw ChildProcess.Failure("pusher_signatures.py exited with status \(run.status) (is pusher==3.3.4 installed? \(PythonPeer.installHint)):\n\(run.stderr)")
        }

        let decoder = SnakeCaseKeys.decoder
        let text = try String(contentsOf: output, encoding: .utf8)
        var version = ""
        var results: [Int: InteropResult] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let data = Data(line.utf8)
            if version.isEmpty {
                struct Header: Decodable { let pusherVersion: String }
                version = try decoder.decode(Header.self, from: data).pusherVersion
                continue
            }
            let result = try decoder.decode(InteropResult.self, from: data)
            results[result.id] = result
        }
        return Outcome(pusherVersion: version, results: results)
    }
}
