import Foundation

/// The real Python peers the interop tests drive (the official `pusher` library, pysher, PyNaCl,
/// django-oauth-toolkit), from `Tests/Interop`. A missing interpreter or library is a failure
/// that says how to install it, never a skip. Each runs through `Tests/Interop/peer.py`, which
/// ends it when the test process that started it is gone (a crashed or killed run leaves no peer
/// behind).
package enum PythonPeer {
    /// What installs the peers.
    package static let installHint = "Run scripts/python-env (installs the pinned peers of Tests/Interop/requirements.txt into .venv) or set CLEARANCE_PYTHON."

    /// `$CLEARANCE_PYTHON`, else `<package root>/.venv/bin/python`.
    package static func interpreter() throws -> URL {
        let python: URL
        if let explicit = ProcessInfo.processInfo.environment["CLEARANCE_PYTHON"], !explicit.isEmpty {
            python = URL(fileURLWithPath: explicit)
        } else {
            python = try PackageRoot.url().appendingPathComponent(".venv/bin/python")
        }
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw ChildProcess.Failure("Python interpreter not found at \(python.path). \(installHint)")
        }
        return python
    }

    /// The path of `script` (relative to `Tests/Interop`).
    package static func script(_ script: String) throws -> URL {
        let url = try PackageRoot.url().appendingPathComponent("Tests/Interop").appendingPathComponent(script)
        guard FileManager.default.fileExists(atPath: url.path) else { throw ChildProcess.Failure("No peer script at \(url.path)") }
        return url
    }

    /// Runs `script` to its end (unbuffered output), with `input` on standard input.
    package static func run(_ script: String, _ arguments: [String] = [], input: Data? = nil, environment: [String: String] = [:], timeout: Duration = .seconds(120)) async throws -> ChildProcess.Output {
        try await ChildProcess.run(try interpreter(), try command(script, arguments), input: input, environment: environment, timeout: timeout)
    }

    /// Starts `script` (a server, say) and returns at once.
    package static func start(_ script: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess.start(try interpreter(), try command(script, arguments), environment: environment)
    }

    /// The interpreter's arguments that run `script`: unbuffered, through `peer.py`.
    package static func command(_ script: String, _ arguments: [String]) throws -> [String] {
        ["-u", try Self.script("peer.py").path, try Self.script(script).path] + arguments
    }

    /// Starts `script` (a server that prints `listening PORT` once it listens) and returns it with
    /// its port; a server that does not say so within 30 s is killed and is a failure.
    package static func startListening(_ script: String, _ arguments: [String] = []) async throws -> (process: ChildProcess, port: Int) {
        let process = try start(script, arguments)
        guard let line = await process.line(timeout: .seconds(30), where: { $0.hasPrefix("listening ") }),
              let port = Int(line.dropFirst("listening ".count))
        else {
            await process.stop(.kill)
            throw ChildProcess.Failure("\(script) did not start: \(process.stderr.suffix(2_000)) \(installHint)")
        }
        return (process, port)
    }
}
