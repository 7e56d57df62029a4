import Foundation

/// Runs `Tests/Interop/pusher_signatures.py` (the official `pusher` library) once over a batch of
/// cases. Any missing piece is an error with a clear message: the interop test fails, never skips.
///
/// - The package root is found by walking up from this file (symlinks resolved) to the directory
///   holding `Tests/Interop/pusher_signatures.py`; `CLEARANCE_ROOT` overrides it.
/// - The interpreter is `$CLEARANCE_PYTHON`, else `<root>/.venv/bin/python` (made by `scripts/python-env`).
enum PythonInterop {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Outcome: Sendable {
        let pusherVersion: String
        let results: [Int: InteropResult]
    }

    static let scriptPath = "Tests/Interop/pusher_signatures.py"

    static func packageRoot(filePath: String = #filePath) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let root = environment["CLEARANCE_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root)
        }
        var directory = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent(scriptPath).path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        throw Failure(description: "Cannot find \(scriptPath) above \(filePath); set CLEARANCE_ROOT to the package root.")
    }

    static func run(_ cases: [InteropCase]) async throws -> Outcome {
        let root = try packageRoot()
        let environment = ProcessInfo.processInfo.environment
        let python = environment["CLEARANCE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: """
                Python interpreter not found at \(python). Run scripts/python-env (creates .venv with \
                pusher==3.3.4) or set CLEARANCE_PYTHON to an interpreter that has the pusher library.
                """)
        }

        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("clearance-signing-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let input = work.appendingPathComponent("cases.jsonl")
        let output = work.appendingPathComponent("results.jsonl")
        let errors = work.appendingPathComponent("stderr.txt")

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var lines = Data()
        for item in cases {
            lines.append(try encoder.encode(item))
            lines.append(UInt8(ascii: "\n"))
        }
        try lines.write(to: input)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent(scriptPath).path, input.path, output.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorHandle = try FileHandle(forWritingTo: errors)
        process.standardError = errorHandle
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: Failure(description: "Cannot start \(python): \(error)"))
            }
        }
        try? errorHandle.close()
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure(description: """
                \(scriptPath) exited with status \(process.terminationStatus) (is pusher==3.3.4 installed in \
                \(python)? scripts/python-env installs it):
                \(stderr)
                """)
        }

        let decoder = JSONDecoder()
        let text = try String(contentsOf: output, encoding: .utf8)
        var version = ""
        var results: [Int: InteropResult] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let data = Data(line.utf8)
            if version.isEmpty {
                struct Header: Decodable {
                    let pusherVersion: String
                    enum CodingKeys: String, CodingKey { case pusherVersion = "pusher_version" }
                }
                version = try decoder.decode(Header.self, from: data).pusherVersion
                continue
            }
            let result = try decoder.decode(InteropResult.self, from: data)
            results[result.id] = result
        }
        return Outcome(pusherVersion: version, results: results)
    }
}
