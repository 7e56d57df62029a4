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

    @OptionGroup var app: AppSigningOptions

    @Option(help: "The channel name, e.g. private-orders or presence-room.")
    var channel: String

    @Option(name: .customLong("channel-data"), help: "Presence channel_data: a JSON object with user_id. Signed verbatim.")
    var channelData: String?

    @Option(name: .customLong("master-key"), help: "Encryption master key (base64 of 32 bytes) for private-encrypted- channels; - reads it from standard input. Also --master-key-file or CLEARANCE_MASTER_KEY.")
    var masterKey: String?

    @Option(name: .customLong("master-key-file"), help: "A file holding the encryption master key.")
    var masterKeyFile: String?

    @Option(name: .customLong("max-channel-length"), help: "Longest accepted channel name (hosted Pusher: 164).")
    var maxChannelLength: Int = ChannelNameLimits.default.maxLength

    func run() throws {
        if masterKey == "-" && app.secret == "-" { throw ValidationError("Only one secret can come from standard input.") }
        let secret = try app.appSecret()
        let masterKey = try SecretInput(flag: "--master-key", environment: "CLEARANCE_MASTER_KEY").resolve(value: masterKey, file: masterKeyFile)
        try app.printSigned { () throws(SigningError) in
            let signer = try ChannelAuthSigner(
                key: app.key, secret: secret, masterKeyBase64: masterKey,
                limits: ChannelNameLimits(maxLength: maxChannelLength))
            return try signer.authorizeChannel(socketID: app.socketID, channelName: channel, channelData: channelData).jsonString
        }
    }
}
