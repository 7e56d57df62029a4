import ArgumentParser
import ClearanceServerPostgres

/// `clearance apps list`: one line per app (id, key, enabled, the id of the key its secrets are
/// sealed with); never a secret.
struct AppsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the apps: id, key, enabled, apps key id (never a secret).")

    @OptionGroup var options: AppsOptions

    func run() async throws {
        try await AppsOptions.reporting {
            try await options.withStore(needsKey: false) { (store: PostgresAppStore) throws(PostgresAppsError) in
                let apps = try await store.list()
                if apps.isEmpty { AppsOptions.say("no apps") }
                for app in apps { AppsOptions.say("\(app.id) key=\(app.key) enabled=\(app.enabled) sealed-with=\(app.keyID)") }
            }
        }
    }
}
