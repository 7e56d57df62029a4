import ArgumentParser
import ClearanceServerPostgres
import ClearanceServer
import Foundation

/// `clearance apps add ID --key KEY`: adds an app; prints its secret once when it generated one.
struct AppsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an app (a secret is generated and printed once unless --secret-file or --secret - gives one).")

    @OptionGroup var options: AppsOptions

    @Argument(help: "The app id (the official Python library accepts digits only).")
    var id: String

    @Option(help: "The app key, unique among the apps.")
    var key: String

    @Option(help: "The app secret: - reads it from standard input (default: generated, printed once). Also --secret-file.")
    var secret: String?

    @Option(name: .customLong("secret-file"), help: "A file holding the app secret.")
    var secretFile: String?

    @Option(help: "More members of the app, as JSON (as in the configuration file's apps: limits, allowedOrigins, webhooks, history…); - reads them from standard input.")
    var settings: String?

    func run() async throws {
        try await AppsOptions.reporting {
            if [secret, settings, options.database, options.appsKey].filter({ $0 == "-" }).count > 1 {
                throw ValidationError("Only one of --secret, --settings, --database and --apps-key can come from standard input.")
            }
            let given = try SecretInput(flag: "--secret", environment: "CLEARANCE_APP_SECRET").resolve(value: secret, file: secretFile, useEnvironment: false)
            var app = HubAppConfiguration(id: id, key: key, secret: given ?? HubConfiguration.randomSecret())
            if let settings {
                do {
                    app = try AppMembers.merge(try AppMembers.read(settings), into: app)
                } catch let error as PostgresAppsError {
                    throw CommandFailure.exitCode(error)
                }
            }
            try await options.withStore(needsKey: true) { (store: PostgresAppStore) throws(PostgresAppsError) in try await store.add(app) }
            AppsOptions.say("added app id=\(app.id) key=\(app.key)")
            if given == nil { AppsOptions.say("secret=\(app.secret) (generated: shown this once)") }
        }
    }
}
