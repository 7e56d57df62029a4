import Clearance
import Foundation

/// How a command ends on a library error: `error: <qualified code>: <message>` on standard
/// error (never a secret: ``ClearanceError`` descriptions are redacted), then exit status 1.
enum CommandFailure {
    static func exit(_ error: some ClearanceError) -> Never {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
        Foundation.exit(1)
    }
}
