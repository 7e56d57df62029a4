import ArgumentParser
import ClearanceServerPostgres

/// `clearance apps enable ID`: the app accepts connections again.
struct AppsEnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable an app again.")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id.")
    var id: String

    func run() async throws {
        try await AppsOptions.reporting {
            try await options.withStore(needsKey: false) { (store: PostgresAppStore) throws(PostgresAppsError) in try await store.setEnabled(true, id: id) }
            AppsOptions.say("enabled app id=\(id)")
        }
    }
}
