import Foundation

/// The `clearance` command-line tool, built beside the tests (`swift build --build-tests` builds
/// it): CLI tests run it as users do.
package enum ClearanceExecutable {
    /// `$CLEARANCE_EXECUTABLE`, or the `clearance` in the build products directory.
    package static func url() throws -> URL {
        if let explicit = ProcessInfo.processInfo.environment["CLEARANCE_EXECUTABLE"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        let argument0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [
            argument0.deletingLastPathComponent(),
            // macOS: .build/debug/XPackageTests.xctest/Contents/MacOS/XPackageTests
            argument0.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent(),
        ].map { $0.appendingPathComponent("clearance") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ChildProcess.Failure("The clearance executable was not built next to the tests (run swift build --build-tests).")
        }
        return found
    }

    /// Runs `clearance` with `arguments`, `input` on standard input, to its end.
    package static func run(_ arguments: [String], input: String = "", environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> ChildProcess.Output {
        try await ChildProcess.run(try url(), arguments, input: Data(input.utf8), environment: environment, timeout: timeout)
    }

    /// Starts `clearance` with `arguments` (a server, a listener) and returns at once.
    package static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess.start(try url(), arguments, environment: environment)
    }
}
