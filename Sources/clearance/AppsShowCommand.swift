import ArgumentParser
import ClearanceServerPostgres

/// `clearance apps show ID`: the app's members as JSON, its secrets redacted.
struct AppsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show an app's members as JSON (its secret, master key and webhook credentials redacted).")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id.")
    var id: String

    func run() async throws {
        try await AppsOptions.reporting {
            try await options.withStore(needsKey: true) { (store: PostgresAppStore) throws(PostgresAppsError) in
                let app = try await store.app(id: id)
                AppsOptions.say((try? AppMembers.shown(app)) ?? "{}")
            }
        }
    }
}
