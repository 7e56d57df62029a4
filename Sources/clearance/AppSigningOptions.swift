import ArgumentParser
import ClearanceSigning
import Foundation

/// The app credentials and socket id that `channel-auth` and `user-auth` sign with.
struct AppSigningOptions: ParsableArguments {
    @Option(help: "The app key.")
    var key: String

    @Option(help: "The app secret; - reads it from standard input. Also --secret-file or CLEARANCE_APP_SECRET (a value here shows in `ps`).")
    var secret: String?

    @Option(name: .customLong("secret-file"), help: "A file holding the app secret.")
    var secretFile: String?

    @Option(name: .customLong("socket-id"), help: "The socket id, e.g. 123.456.")
    var socketID: String

    /// The app secret from --secret, --secret-file or CLEARANCE_APP_SECRET.
    func appSecret() throws -> String {
        guard let secret = try SecretInput(flag: "--secret", environment: "CLEARANCE_APP_SECRET").resolve(value: secret, file: secretFile) else {
            throw ValidationError("Give the app secret: --secret - (standard input), --secret-file PATH or CLEARANCE_APP_SECRET.")
        }
        return secret
    }

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
