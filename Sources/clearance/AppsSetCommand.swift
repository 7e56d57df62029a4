import ArgumentParser
import ClearanceServerPostgres
import ClearanceServer

/// `clearance apps set ID JSON`: changes an app's members, validated as the file's apps are.
struct AppsSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change an app's members, given as JSON as in the configuration file's apps (a member given replaces it whole).")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id.")
    var id: String

    @Argument(help: "The members to change, as a JSON object ('{\"maxConnections\": 500}'); - reads it from standard input.")
    var members: String

    func run() async throws {
        try await AppsOptions.reporting {
            if [members, options.database, options.appsKey].filter({ $0 == "-" }).count > 1 {
                throw ValidationError("Only one of the members, --database and --apps-key can come from standard input.")
            }
            var current: HubAppConfiguration?
            try await options.withStore(needsKey: true) { (store: PostgresAppStore) throws(PostgresAppsError) in current = try await store.app(id: id) }
            guard let current else { return }
            let changed = try AppMembers.merge(members, into: current)
            try await options.withStore(needsKey: true) { (store: PostgresAppStore) throws(PostgresAppsError) in try await store.replace(changed) }
            AppsOptions.say("changed app id=\(id)\(changed.key != current.key ? " key=\(changed.key) (connections with the old key are closed)" : "")")
        }
    }
}
