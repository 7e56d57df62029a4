import ArgumentParser
import Clearance
import Foundation

/// How a command ends on a library error: `error: <qualified code>: <message>` on standard
/// error (never a secret: ``ClearanceError`` descriptions are redacted), then exit status 1.
enum CommandFailure {
    /// Reports `error` and exits at once.
    static func exit(_ error: some ClearanceError) -> Never {
        report(error)
        Foundation.exit(1)
    }

    /// Reports `error`; the command throws the answer (its exit status) to end.
    static func exitCode(_ error: some ClearanceError) -> ExitCode {
        report(error)
        return ExitCode(1)
    }

    private static func report(_ error: some ClearanceError) {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
    }
}
