import Foundation

/// Runs a Python peer script from `Tests/Interop` with a hard timeout. A missing interpreter
/// or script is a failure with a clear message, never a skip.
///
/// - The package root is found by walking up from this file (symlinks resolved) to the
///   directory holding `Tests/Interop`; `CLEARANCE_ROOT` overrides it.
/// - The interpreter is `$CLEARANCE_PYTHON`, else `<root>/.venv/bin/python` (made by
///   `scripts/python-env`, with pysher, pusher, websocket-client and requests).
enum PythonPeer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Run: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func packageRoot(script: String, filePath: String = #filePath) throws -> URL {
        if let root = ProcessInfo.processInfo.environment["CLEARANCE_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root)
        }
        var directory = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent(script).path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        throw Failure(description: "Cannot find \(script) above \(filePath); set CLEARANCE_ROOT to the package root.")
    }

    static func interpreter(root: URL) throws -> String {
        let python = ProcessInfo.processInfo.environment["CLEARANCE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: """
                Python interpreter not found at \(python). Run scripts/python-env (creates .venv with pysher==1.0.8, \
                pusher==3.3.4, websocket-client and requests) or set CLEARANCE_PYTHON.
                """)
        }
        return python
    }

    /// Runs `script` (relative to the package root) and returns its exit status and output.
    /// After `timeout` the process is terminated, then killed, and the run fails.
    static func run(script: String, arguments: [String], timeout: Duration) async throws -> Run {
        let root = try packageRoot(script: script)
        let python = try interpreter(root: root)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-hub-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let outURL = work.appendingPathComponent("stdout.txt")
        let errURL = work.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", root.appendingPathComponent(script).path] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        let (ended, endedContinuation) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in
            endedContinuation.yield()
            endedContinuation.finish()
        }
        do {
            try process.run()
        } catch {
            throw Failure(description: "Cannot start \(python): \(error)")
        }

        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in ended {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !finished {
            process.terminate()
            try? await Task.sleep(for: .seconds(2))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let stdout = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        guard finished else {
            throw Failure(description: "\(script) did not finish within \(timeout); stdout: \(stdout.suffix(2_000)) stderr: \(stderr.suffix(2_000))")
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}
