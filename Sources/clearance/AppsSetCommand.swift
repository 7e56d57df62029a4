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
            let given = try AppMembers.read(members)
            var before: HubAppConfiguration?
            var after: HubAppConfiguration?
            try await options.withStore(needsKey: true) { (store: PostgresAppStore) throws(PostgresAppsError) in
                after = try await store.change(id: id) { (current: HubAppConfiguration) throws(PostgresAppsError) in
                    before = current
                    return try AppMembers.merge(given, into: current)
                }
            }
            guard let before, let after else { return }
            AppsOptions.say("changed app id=\(id)\(after.key != before.key ? " key=\(after.key) (connections with the old key are closed)" : "")")
        }
    }
}
