import ArgumentParser
import ClearanceServerPostgres

/// `clearance apps remove ID`: the app is no longer served; its connections are closed with 4001.
struct AppsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an app: its connections are closed with 4001.")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id.")
    var id: String

    func run() async throws {
        try await AppsOptions.reporting {
            try await options.withStore(needsKey: false) { (store: PostgresAppStore) throws(PostgresAppsError) in try await store.remove(id: id) }
            AppsOptions.say("removed app id=\(id)")
        }
    }
}
