import ArgumentParser
import ClearanceServerPostgres
import ClearanceServer

/// `clearance apps rotate-secret ID`: a new secret, printed once; signatures made with the old
/// one are refused from then on, open connections stay.
struct AppsRotateSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-secret",
        abstract: "Give an app a new secret, printed once: the old one's signatures are refused from then on; open connections stay.")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id.")
    var id: String

    func run() async throws {
        try await AppsOptions.reporting {
            let secret = HubConfiguration.randomSecret()
            try await options.withStore(needsKey: true) { (store: PostgresAppStore) throws(PostgresAppsError) in
                try await store.change(id: id) { app in
                    var app = app
                    app.secret = secret
                    return app
                }
            }
            AppsOptions.say("rotated app id=\(id)")
            AppsOptions.say("secret=\(secret) (shown this once)")
        }
    }
}
