import ArgumentParser
import Clearance
import ClearanceOAuth2
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

    /// Reports an OAuth 2.0 error, or, when an identity verifier refused or could not verify
    /// the answer, the verifier's own error (`openid.nonce_mismatch`: each refusal its code).
    static func exitCode(_ error: OAuth2Error) -> ExitCode {
        if let identity = error.identityError { return exitCode(identity) }
        report(error)
        return ExitCode(1)
    }

    private static func report(_ error: any ClearanceError) {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
    }
}
