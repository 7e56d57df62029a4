import ArgumentParser
import ClearanceSigning
import Foundation

/// The app credentials and socket id that `channel-auth` and `user-auth` sign with.
struct AppSigningOptions: ParsableArguments {
    @Option(help: "The app key.")
    var key: String

    @Option(help: "The app secret.")
    var secret: String

    @Option(name: .customLong("socket-id"), help: "The socket id, e.g. 123.456.")
    var socketID: String

    /// Runs `sign` and prints its JSON; a signing error is printed with its code and exits non-zero.
    func printSigned(_ sign: () throws(SigningError) -> String) throws {
        do {
            print(try sign())
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.message) (\(error.qualifiedCode))\n".utf8))
            throw ExitCode.validationFailure
        }
    }
}
