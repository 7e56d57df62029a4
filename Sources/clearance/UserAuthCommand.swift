import ArgumentParser
import ClearanceSigning
import Foundation

/// `clearance user-auth`: prints the JSON a Pusher user authentication endpoint would return.
struct UserAuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user-auth",
        abstract: "Sign a Pusher user sign-in and print the user-auth endpoint's JSON response.",
        discussion: """
            Signs socket_id::user::user_data with the app secret. --user-data must be a JSON \
            object with a non-empty string id; it is signed verbatim.
            """
    )

    @Option(help: "The app key.")
    var key: String

    @Option(help: "The app secret.")
    var secret: String

    @Option(name: .customLong("socket-id"), help: "The socket id, e.g. 123.456.")
    var socketID: String

    @Option(name: .customLong("user-data"), help: "user_data: a JSON object with a string id.")
    var userData: String

    func run() throws {
        do {
            let signer = try ChannelAuthSigner(key: key, secret: secret)
            let authentication = try signer.authenticateUser(socketID: socketID, userData: userData)
            print(authentication.jsonString)
        } catch {
            // The do body throws only SigningError, so `error` is typed.
            let error: SigningError = error
            FileHandle.standardError.write(Data("Error: \(error.message) (\(error.code))\n".utf8))
            throw ExitCode.validationFailure
        }
    }
}
