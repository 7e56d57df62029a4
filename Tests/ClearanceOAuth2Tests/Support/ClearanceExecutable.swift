import Foundation

/// The `clearance` command-line tool built beside the tests.
enum ClearanceExecutable {
    /// `$CLEARANCE_EXECUTABLE`, or the `clearance` in the build products directory.
    static func url() -> URL? {
        if let explicit = ProcessInfo.processInfo.environment["CLEARANCE_EXECUTABLE"] {
            return URL(fileURLWithPath: explicit)
        }
        let argument0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [
            argument0.deletingLastPathComponent().appendingPathComponent("clearance"),
            // macOS: .build/debug/XPackageTests.xctest/Contents/MacOS/XPackageTests
            argument0.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("clearance"),
            Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("clearance"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `clearance` with `arguments` and `input` on standard input; returns the exit status and output.
    static func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) async throws -> (status: Int32, output: String, error: String) {
        guard let url = url() else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        if !input.isEmpty { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        // Read both pipes to the end off the cooperative pool, then reap the child.
        let (output, error) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Data), Never>) in
            DispatchQueue.global().async {
                let group = DispatchGroup()
                nonisolated(unsafe) var errorData = Data()
                group.enter()
                DispatchQueue.global().async {
                    errorData = stderr.fileHandleForReading.readDataToEndOfFile()
                    group.leave()
                }
                let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                continuation.resume(returning: (outputData, errorData))
            }
        }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }
}
