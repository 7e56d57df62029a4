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

    @OptionGroup var app: AppSigningOptions

    @Option(name: .customLong("user-data"), help: "user_data: a JSON object with a string id.")
    var userData: String

    func run() throws {
        let secret = try app.appSecret()
        try app.printSigned { () throws(SigningError) in
            try ChannelAuthSigner(key: app.key, secret: secret).authenticateUser(socketID: app.socketID, userData: userData).jsonString
        }
    }
}
