import ArgumentParser
import ClearanceServerPostgres

/// `clearance apps disable ID`: the app's connections are closed with 4003 and new ones refused.
struct AppsDisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable an app: its connections are closed with 4003, new ones refused.")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id.")
    var id: String

    func run() async throws {
        try await AppsOptions.reporting {
            try await options.withStore(needsKey: false) { (store: PostgresAppStore) throws(PostgresAppsError) in try await store.setEnabled(false, id: id) }
            AppsOptions.say("disabled app id=\(id)")
        }
    }
}
