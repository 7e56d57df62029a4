import Foundation

/// The official Python library's cost of one channel authorization, on the same strings, run
/// from the project's `.venv` (or `$CLEARANCE_PYTHON`).
enum PythonSigningBaseline {
    /// µs per `authenticate`, or nil when there is no Python with the library.
    static func microsecondsPerSignature(key: String, secret: String, pairs: [(socketID: String, channel: String)]) -> Double? {
        let python = ProcessInfo.processInfo.environment["CLEARANCE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.currentDirectoryPath + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("  (no Python at \(python): run scripts/python-env for the official library's figure)")
            return nil
        }
        guard let pairsJSON = try? JSONSerialization.data(withJSONObject: pairs.map { [$0.socketID, $0.channel] }) else { return nil }
        let script = """
            import json, sys, time, pusher
            pairs = json.loads(sys.stdin.read())
            client = pusher.Pusher(app_id='1', key='\(key)', secret='\(secret)')
            n = 100000
            for i in range(n // 10): client.authenticate(pairs[i % len(pairs)][1], pairs[i % len(pairs)][0])
            start = time.perf_counter()
            for i in range(n): client.authenticate(pairs[i % len(pairs)][1], pairs[i % len(pairs)][0])
            print((time.perf_counter() - start) / n * 1e6)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            input.fileHandleForWriting.write(pairsJSON)
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            return nil
        }
    }
}
