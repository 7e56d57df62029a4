import ArgumentParser
import ClearanceSigning
import Foundation

/// `clearance channel-auth`: prints the JSON a Pusher channel authorization endpoint would return.
struct ChannelAuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel-auth",
        abstract: "Sign a Pusher channel subscription and print the auth endpoint's JSON response.",
        discussion: """
            Signs socket_id:channel_name (plus :channel_data for presence channels) with the app \
            secret. Presence channels need --channel-data, a JSON object with a user_id; \
            private-encrypted- channels need --master-key and also get a shared_secret.
            """
    )

    @Option(help: "The app key.")
    var key: String

    @Option(help: "The app secret.")
    var secret: String

    @Option(name: .customLong("socket-id"), help: "The socket id, e.g. 123.456.")
    var socketID: String

    @Option(help: "The channel name, e.g. private-orders or presence-room.")
    var channel: String

    @Option(name: .customLong("channel-data"), help: "Presence channel_data: a JSON object with user_id. Signed verbatim.")
    var channelData: String?

    @Option(name: .customLong("master-key"), help: "Encryption master key (base64 of 32 bytes) for private-encrypted- channels.")
    var masterKey: String?

    @Option(name: .customLong("max-channel-length"), help: "Longest accepted channel name (hosted Pusher: 164).")
    var maxChannelLength: Int = ChannelNameLimits.default.maxLength

    func run() throws {
        do {
            let signer = try ChannelAuthSigner(
                key: key,
                secret: secret,
                masterKeyBase64: masterKey,
                limits: ChannelNameLimits(maxLength: maxChannelLength)
            )
            let authorization = try signer.authorizeChannel(
                socketID: socketID,
                channelName: channel,
                channelData: channelData
            )
            print(authorization.jsonString)
        } catch {
            // The do body throws only SigningError, so `error` is typed.
            let error: SigningError = error
            FileHandle.standardError.write(Data("Error: \(error.message) (\(error.code))\n".utf8))
            throw ExitCode.validationFailure
        }
    }
}
